import Crypto
import Foundation
import SesameAPI
import SesameWebAuthn
import SesameWebAuthnTesting
import SwiftASN1
import Testing
import X509
import _CryptoExtras

/// Inputs that once crashed a parser (docs/fuzzing.md), each now refused with an error.
@Suite("Fuzz regressions: WebAuthn parsers")
struct WebAuthnFuzzRegressionTests {
    /// Found in review of the SafetyNet path, which the fuzzer cannot reach past the JWS signature:
    /// any self-signed `attest.android.com` leaf passes the signature check before chain
    /// validation, and its `timestampMs` of 1e300 trapped converting the distance to `Int`.
    @Test("a SafetyNet timestampMs far beyond Int's range is refused, not a trap")
    func safetyNetTimestampBeyondIntRange() async throws {
        var fixture = RegistrationFixture()
        let authData = try fixture.authenticatorData()
        let nonce = Data(SHA256.hash(data: authData + Array(SHA256.hash(data: fixture.clientDataJSON)))).base64EncodedString()
        let jws = try SelfSignedSafetyNet().response(payload: [
            "nonce": nonce, "timestampMs": 1e300, "ctsProfileMatch": true, "basicIntegrity": true,
        ])
        fixture.format = "android-safetynet"
        fixture.statementOverride = .map([(.text("ver"), .text("1")), (.text("response"), .bytes(jws))])
        await #expect(throws: WebAuthnError.safetyNetTimestampInvalid) {
            try await WebAuthnRelyingParty.fixture.verifyRegistration(
                credential: try fixture.build(), expectedChallenge: fixture.challenge)
        }
    }
}

/// A SafetyNet response signed by a self-signed `attest.android.com` certificate: what anyone
/// can make, and enough to pass every check that runs before chain validation.
private struct SelfSignedSafetyNet {
    let key: _RSA.Signing.PrivateKey
    let certificate: Certificate

    init() throws {
        key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let name = try DistinguishedName { CommonName("attest.android.com") }
        certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: Date(timeIntervalSince1970: 0), notValidAfter: Date(timeIntervalSince1970: 4_000_000_000),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: Certificate.Extensions(), issuerPrivateKey: .init(key))
    }

    /// The compact JWS `header.payload.signature`, RS256 with the certificate in `x5c`.
    func response(payload: [String: Any]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let header: [String: Any] = ["alg": "RS256", "x5c": [Data(serializer.serializedBytes).base64EncodedString()]]
        let signingInput = try [header, payload]
            .map { Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: $0))) }
            .joined(separator: ".")
        let signature = try key.signature(for: SHA256.hash(data: Array(signingInput.utf8)), padding: .insecurePKCS1v1_5)
        return Array("\(signingInput).\(Base64URL.encode(Array(signature.rawRepresentation)))".utf8)
    }
}
