import SwiftASN1
import X509

/// §8.3.1 TPM attestation (AIK) certificate requirements.
enum TPMAIKCertificate {
    /// Critical extensions this procedure checks (SAN) or may safely ignore for attestation
    /// (certificatePolicies, EKU), so chain building accepts them.
    static let handledCriticalExtensions: [ASN1ObjectIdentifier] = [
        AttestationOID.subjectAlternativeName, AttestationOID.certificatePolicies, AttestationOID.extendedKeyUsage,
    ]

    /// v3, empty subject, TCG attributes in the SAN, EKU tcg-kp-AIKCertificate, not a CA,
    /// and a matching id-fido-gen-ce-aaguid when present.
    static func check(_ certificate: Certificate, aaguid: [UInt8]) throws(WebAuthnError) {
        guard certificate.version == .v3 else { throw invalid("AIK certificate is not X.509 v3") }
        guard certificate.subject.isEmpty else { throw invalid("AIK certificate subject is not empty") }
        guard let san = certificate.extensions[oid: AttestationOID.subjectAlternativeName],
            hasTCGAttributes(san.value)
        else { throw invalid("AIK subjectAltName lacks TPM manufacturer, model and version") }
        guard let eku = certificate.extensions[oid: AttestationOID.extendedKeyUsage],
            oids(in: eku.value).contains(AttestationOID.tcgAIKCertificate)
        else { throw invalid("AIK extended key usage lacks tcg-kp-AIKCertificate") }
        try certificate.checkNotCertificateAuthority()
        try certificate.checkAAGUIDExtension(expected: aaguid)
    }

    /// The TCG attributes may sit in one RDN or three, inside a directoryName or (in non-compliant
    /// certificates) nested differently, so every attribute anywhere in the SAN is collected.
    private static func hasTCGAttributes(_ value: ArraySlice<UInt8>) -> Bool {
        let found = Set(oids(in: value))
        return found.isSuperset(of: [AttestationOID.tcgManufacturer, AttestationOID.tcgModel, AttestationOID.tcgVersion])
    }

    /// Every OBJECT IDENTIFIER in a BER structure, depth-first.
    private static func oids(in value: ArraySlice<UInt8>) -> [ASN1ObjectIdentifier] {
        guard let root = try? BER.parse(value) else { return [] }
        var result: [ASN1ObjectIdentifier] = []
        collect(root, into: &result, depth: 0)
        return result
    }

    private static func collect(_ node: ASN1Node, into result: inout [ASN1ObjectIdentifier], depth: Int) {
        guard depth < 16 else { return }
        switch node.content {
        case .primitive:
            if node.identifier == .objectIdentifier, let oid = try? ASN1ObjectIdentifier(berEncoded: node) {
                result.append(oid)
            }
        case .constructed(let children):
            for child in children { collect(child, into: &result, depth: depth + 1) }
        }
    }

    private static func invalid(_ detail: String) -> WebAuthnError {
        WebAuthnError.attestationCertificateInvalid.with(detail: detail)
    }
}
