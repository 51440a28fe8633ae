import Crypto
import Foundation
import SesameAPI
public import SesameWebAuthn

/// A valid assertion from ``SoftwareAuthenticator``; tests change one field and build.
public struct AuthenticationFixture {
    public var authenticator: SoftwareAuthenticator
    public var challenge: [UInt8] = Array(100..<132)
    public var clientData = ClientDataFixture(type: "webauthn.get")
    public var rpIDForHash = "example.org"
    public var flags: UInt8 = 0x05  // UP | UV
    public var signCount: UInt32 = 1
    public var extensions: TestCBOR?
    public var credentialID: [UInt8] = Array(repeating: 0xC1, count: 16)
    public var userHandle: [UInt8]? = Array("user-1".utf8)
    public var tamperSignature = false

    public init(_ authenticator: SoftwareAuthenticator = .es256()) {
        self.authenticator = authenticator
    }

    /// The stored credential public key (COSE bytes).
    public var storedKey: [UInt8] {
        get throws { try authenticator.coseKey.encoded }
    }

    public func build() throws -> AuthenticationCredential {
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
