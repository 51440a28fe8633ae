import Crypto
import Foundation
import SesameWebAuthn

/// A valid assertion from ``SoftwareAuthenticator``; tests change one field and build.
struct AuthenticationFixture {
    var authenticator: SoftwareAuthenticator
    var challenge: [UInt8] = Array(100..<132)
    var clientData = ClientDataFixture(type: "webauthn.get")
    var rpIDForHash = "example.org"
    var flags: UInt8 = 0x05  // UP | UV
    var signCount: UInt32 = 1
    var extensions: TestCBOR?
    var credentialID: [UInt8] = Array(repeating: 0xC1, count: 16)
    var userHandle: [UInt8]? = Array("user-1".utf8)
    var tamperSignature = false

    init(_ authenticator: SoftwareAuthenticator = .es256()) {
        self.authenticator = authenticator
    }

    /// The stored credential public key (COSE bytes).
    var storedKey: [UInt8] {
        get throws { try authenticator.coseKey.encoded }
    }

    func build() throws -> AuthenticationCredential {
        let rpIDHash = Array(SHA256.hash(data: Array(rpIDForHash.utf8)))
        let authData = rpIDHash + [flags] + TestCBOR.bigEndian(UInt64(signCount), count: 4) + (extensions?.encoded ?? [])
        let clientDataJSON = clientData.json(challenge: challenge)
        var signature = try authenticator.sign(authData + Array(SHA256.hash(data: clientDataJSON)))
        if tamperSignature { signature[signature.count / 2] ^= 0x01 }
        let response = AuthenticatorAssertionResponse(
            clientDataJSON: clientDataJSON, authenticatorData: authData, signature: signature, userHandle: userHandle)
        return AuthenticationCredential(id: Base64URL.encode(credentialID), rawID: credentialID, response: response)
    }
}
