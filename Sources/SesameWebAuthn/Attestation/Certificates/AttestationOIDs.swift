import SwiftASN1

/// Object identifiers the attestation formats look for.
enum AttestationOID {
    /// id-fido-gen-ce-aaguid (FIDO Metadata, §8.2.1 / §8.3.1).
    static let fidoAAGUID: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4]
    /// Android key attestation KeyDescription extension (§8.4).
    static let androidKeyDescription: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11129, 2, 1, 17]
    /// Apple anonymous attestation nonce extension (§8.8).
    static let appleNonce: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 8, 2]
    /// tcg-kp-AIKCertificate extended key usage (§8.3.1).
    static let tcgAIKCertificate: ASN1ObjectIdentifier = [2, 23, 133, 8, 3]
    /// TCG subject alternative name attributes: manufacturer, model, version.
    static let tcgManufacturer: ASN1ObjectIdentifier = [2, 23, 133, 2, 1]
    static let tcgModel: ASN1ObjectIdentifier = [2, 23, 133, 2, 2]
    static let tcgVersion: ASN1ObjectIdentifier = [2, 23, 133, 2, 3]
    /// X.509 extensions.
    static let basicConstraints: ASN1ObjectIdentifier = [2, 5, 29, 19]
    static let subjectAlternativeName: ASN1ObjectIdentifier = [2, 5, 29, 17]
    static let certificatePolicies: ASN1ObjectIdentifier = [2, 5, 29, 32]
    static let extendedKeyUsage: ASN1ObjectIdentifier = [2, 5, 29, 37]
    /// Name attributes.
    static let commonName: ASN1ObjectIdentifier = [2, 5, 4, 3]
    static let countryName: ASN1ObjectIdentifier = [2, 5, 4, 6]
    static let organizationName: ASN1ObjectIdentifier = [2, 5, 4, 10]
    static let organizationalUnitName: ASN1ObjectIdentifier = [2, 5, 4, 11]
}
