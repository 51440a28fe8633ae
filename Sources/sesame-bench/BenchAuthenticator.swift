import Crypto
import Foundation
import SesameAPI
import SesameWebAuthn

/// A software ES256 authenticator that makes real assertions for the passkey benchmark:
/// authenticatorData, clientDataJSON and a DER ECDSA signature over authData ‖ SHA-256(clientDataJSON).
struct BenchAuthenticator {
    static let rpID = "example.org"
    static let origin = "https://example.org"

    let privateKey = P256.Signing.PrivateKey()
    let credentialID: [UInt8] = Array((0..<32).map { UInt8($0) })

    /// One assertion and the challenge it answers.
    struct Assertion: Sendable {
        let credential: AuthenticationCredential
        let challenge: [UInt8]
    }

    /// The credential public key as the COSE_Key a relying party stores:
    /// `{1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}`.
    var coseKey: [UInt8] {
        let raw = Array(privateKey.publicKey.rawRepresentation)
        return [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + raw[0..<32]
            + [0x22, 0x58, 0x20] + raw[32..<64]
    }

    /// Signs an assertion for a fresh random challenge, with flags UP and UV and sign count 0
    /// (as synced passkeys send).
    func assertion() throws -> Assertion {
        let challenge = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let clientData =
            #"{"type":"webauthn.get","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(Self.origin)","crossOrigin":false}"#
        let clientDataJSON = Array(clientData.utf8)
        let authenticatorData = Array(SHA256.hash(data: Array(Self.rpID.utf8))) + [0x05, 0, 0, 0, 0]
        let signed = authenticatorData + Array(SHA256.hash(data: clientDataJSON))
        let signature = Array(try privateKey.signature(for: signed).derRepresentation)
        let response = AuthenticatorAssertionResponse(
            clientDataJSON: clientDataJSON, authenticatorData: authenticatorData, signature: signature)
        let credential = AuthenticationCredential(
            id: Base64URL.encode(credentialID), rawID: credentialID, response: response)
        return Assertion(credential: credential, challenge: challenge)
    }
}
