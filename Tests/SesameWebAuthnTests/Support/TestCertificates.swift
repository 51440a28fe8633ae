import Crypto
import Foundation
import SwiftASN1
import X509

/// A generated attestation PKI: a root CA and a packed-compliant batch certificate.
struct TestCertificates {
    let rootKey = P256.Signing.PrivateKey()
    let leafKey = P256.Signing.PrivateKey()
    let root: Certificate
    let leaf: Certificate
    static let notBefore = Date(timeIntervalSince1970: 1_700_000_000)
    static let notAfter = notBefore.addingTimeInterval(365 * 24 * 3600)

    init() throws {
        let rootName = try DistinguishedName { CommonName("Sesame Test Attestation Root") }
        root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: Self.notBefore, notValidAfter: Self.notAfter, issuer: rootName, subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil)) },
            issuerPrivateKey: .init(rootKey))
        let leafName = try DistinguishedName {
            CountryName("US")
            OrganizationName("Sesame")
            OrganizationalUnitName("Authenticator Attestation")
            CommonName("Sesame Test Batch")
        }
        leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: Self.notBefore, notValidAfter: Self.notAfter, issuer: rootName, subject: leafName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) },
            issuerPrivateKey: .init(rootKey))
    }

    var leafDER: [UInt8] {
        get throws {
            var serializer = DER.Serializer()
            try serializer.serialize(leaf)
            return serializer.serializedBytes
        }
    }
}
