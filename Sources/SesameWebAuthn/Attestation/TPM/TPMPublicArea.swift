/// TPMT_PUBLIC (TPM 2.0 Part 2, §12.2.4): the `pubArea` of a TPM attestation statement.
struct TPMPublicArea {
    enum Unique: Equatable {
        /// RSA modulus and exponent (an exponent of 0 means the default 65537).
        case rsa(modulus: [UInt8], exponent: UInt32)
        /// ECC curve (TPM_ECC_CURVE) and point.
        case ecc(curve: UInt16, x: [UInt8], y: [UInt8])
    }

    static let algorithmRSA: UInt16 = 0x0001
    static let algorithmECC: UInt16 = 0x0023
    static let algorithmNull: UInt16 = 0x0010

    let nameAlgorithm: UInt16
    let unique: Unique

    init(bytes: [UInt8]) throws(WebAuthnError) {
        var reader = TPMReader(bytes)
        let type = try reader.uint16()
        nameAlgorithm = try reader.uint16()
        _ = try reader.uint32()  // objectAttributes
        _ = try reader.sized()  // authPolicy
        switch type {
        case Self.algorithmRSA: unique = try Self.readRSA(&reader)
        case Self.algorithmECC: unique = try Self.readECC(&reader)
        default: throw WebAuthnError.tpmStructureInvalid.with(detail: "pubArea type \(type)")
        }
        try reader.expectEnd("pubArea")
    }

    /// TPMS_RSA_PARMS then TPM2B_PUBLIC_KEY_RSA.
    private static func readRSA(_ reader: inout TPMReader) throws(WebAuthnError) -> Unique {
        try skipSymmetric(&reader)
        try skipScheme(&reader)
        _ = try reader.uint16()  // keyBits
        let exponent = try reader.uint32()
        let modulus = try reader.sized()
        return .rsa(modulus: modulus, exponent: exponent == 0 ? 65537 : exponent)
    }

    /// TPMS_ECC_PARMS then TPMS_ECC_POINT.
    private static func readECC(_ reader: inout TPMReader) throws(WebAuthnError) -> Unique {
        try skipSymmetric(&reader)
        try skipScheme(&reader)
        let curve = try reader.uint16()
        try skipScheme(&reader)  // kdf: TPMT_KDF_SCHEME has the same shape
        let x = try reader.sized()
        let y = try reader.sized()
        return .ecc(curve: curve, x: x, y: y)
    }

    /// TPMT_SYM_DEF_OBJECT: algorithm, then keyBits and mode unless the algorithm is NULL.
    private static func skipSymmetric(_ reader: inout TPMReader) throws(WebAuthnError) {
        if try reader.uint16() != algorithmNull { _ = try reader.bytes(4) }
    }

    /// TPMT_*_SCHEME: scheme, then a hash algorithm unless the scheme is NULL.
    private static func skipScheme(_ reader: inout TPMReader) throws(WebAuthnError) {
        if try reader.uint16() != algorithmNull { _ = try reader.uint16() }
    }
}

/// TPMS_ATTEST (TPM 2.0 Part 2, §10.12.12): the `certInfo` of a TPM attestation statement.
struct TPMAttestInfo {
    static let generatedValue: UInt32 = 0xFF54_4347
    static let attestCertify: UInt16 = 0x8017

    let extraData: [UInt8]
    /// TPMS_CERTIFY_INFO.name: nameAlg ‖ H(pubArea).
    let attestedName: [UInt8]

    init(bytes: [UInt8]) throws(WebAuthnError) {
        var reader = TPMReader(bytes)
        guard try reader.uint32() == Self.generatedValue else {
            throw WebAuthnError.tpmStructureInvalid.with(detail: "certInfo.magic is not TPM_GENERATED_VALUE")
        }
        guard try reader.uint16() == Self.attestCertify else {
            throw WebAuthnError.tpmStructureInvalid.with(detail: "certInfo.type is not TPM_ST_ATTEST_CERTIFY")
        }
        _ = try reader.sized()  // qualifiedSigner
        extraData = try reader.sized()
        _ = try reader.bytes(17)  // clockInfo: clock, resetCount, restartCount, safe
        _ = try reader.uint64()  // firmwareVersion
        attestedName = try reader.sized()
        _ = try reader.sized()  // qualifiedName
        try reader.expectEnd("certInfo")
    }
}
