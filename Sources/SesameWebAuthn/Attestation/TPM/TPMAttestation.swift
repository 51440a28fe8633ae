/// §8.3 `tpm`: `{ver: "2.0", alg, x5c, sig, certInfo, pubArea}`.
enum TPMAttestation: AttestationVerifier {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        let statement = input.statement
        guard statement[text: "ver"]?.textValue == "2.0" else {
            throw WebAuthnError.malformedAttestationStatement.with(detail: "ver is not \"2.0\"")
        }
        // RS1 (-65535) is accepted here: Windows TPMs sign certInfo with SHA-1.
        let algorithm = try statement.statementAlgorithm()
        let signature = try statement.statementBytes("sig")
        let certInfoBytes = try statement.statementBytes("certInfo")
        let pubAreaBytes = try statement.statementBytes("pubArea")
        // The ecdaaKeyId variant is obsolete, so x5c is required.
        let certificates = try AttestationCertificates.parse(statement)

        let pubArea = try TPMPublicArea(bytes: pubAreaBytes)
        try checkPublicArea(pubArea, matches: input.credentialKey)
        let certInfo = try TPMAttestInfo(bytes: certInfoBytes)
        try checkCertInfo(
            certInfo, pubAreaBytes: pubAreaBytes, nameAlgorithm: pubArea.nameAlgorithm,
            algorithm: algorithm, input: input)

        // Step: sig is the AIK's signature over certInfo.
        let aik = certificates[0]
        guard try VerificationKey(certificate: aik).isValidSignature(signature, for: certInfoBytes, algorithm: algorithm)
        else { throw WebAuthnError.attestationSignatureInvalid }
        try TPMAIKCertificate.check(aik, aaguid: input.attestedCredential.aaguid)
        return AttestationOutcome(
            type: .attestationCA,
            trustPath: certificates,
            handledCriticalExtensions: TPMAIKCertificate.handledCriticalExtensions
        )
    }

    /// §8.3.2: the key in pubArea is the credential public key.
    private static func checkPublicArea(_ pubArea: TPMPublicArea, matches key: COSEKey) throws(WebAuthnError) {
        let matches: Bool
        switch (pubArea.unique, key.parameters) {
        case (.rsa(let modulus, let exponent), .rsa(let n, let e)):
            matches = stripZeros(modulus) == stripZeros(n) && UInt64(bigEndian: e) == UInt64(exponent)
        case (.ecc(let curve, let x, let y), .ec2(let coseCurve, let coseX, let coseY)):
            // TPM_ECC_NIST_P256/P384/P521 = 3/4/5; COSE crv 1/2/3.
            matches = Int(curve) == coseCurve + 2 && x == coseX && y == coseY
        default:
            matches = false
        }
        guard matches else { throw WebAuthnError.attestationPublicKeyMismatch.with(detail: "pubArea") }
    }

    /// §8.3.2: certInfo certifies this pubArea and this ceremony.
    private static func checkCertInfo(
        _ certInfo: TPMAttestInfo,
        pubAreaBytes: [UInt8],
        nameAlgorithm: UInt16,
        algorithm: COSEAlgorithm,
        input: AttestationInput
    ) throws(WebAuthnError) {
        guard let hash = algorithm.hashAlgorithm else {
            throw WebAuthnError.unsupportedAlgorithm.with(detail: "TPM alg \(algorithm.rawValue) has no hash")
        }
        // extraData = hash_alg(authenticatorData ‖ clientDataHash); SHA-1 for RS1.
        guard ConstantTime.equal(certInfo.extraData, hash.hash(input.signedData)) else {
            throw WebAuthnError.attestationNonceMismatch.with(detail: "certInfo.extraData")
        }
        guard let nameHash = HashAlgorithm(tpmAlgorithmID: nameAlgorithm) else {
            throw WebAuthnError.tpmStructureInvalid.with(detail: "pubArea nameAlg \(nameAlgorithm)")
        }
        // attested.name = nameAlg ‖ H_nameAlg(pubArea).
        let name = [UInt8(nameAlgorithm >> 8), UInt8(nameAlgorithm & 0xFF)] + nameHash.hash(pubAreaBytes)
        guard certInfo.attestedName == name else {
            throw WebAuthnError.tpmStructureInvalid.with(detail: "certInfo.attested.name does not name pubArea")
        }
    }

    private static func stripZeros(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        bytes.drop { $0 == 0 }
    }
}

extension UInt64 {
    /// A big-endian unsigned integer of up to 8 bytes (longer inputs give `UInt64.max`).
    fileprivate init(bigEndian bytes: [UInt8]) {
        let significant = bytes.drop { $0 == 0 }
        guard significant.count <= 8 else {
            self = .max
            return
        }
        self = significant.reduce(0) { ($0 << 8) | UInt64($1) }
    }
}
