public import Crypto
import Foundation
import SesameAPI
public import SesameWebAuthn

/// A valid registration from ``SoftwareAuthenticator``; tests change one field and build.
public struct RegistrationFixture {
    public enum Attestation { case none, packedSelf, packedFull }

    public var authenticator: SoftwareAuthenticator
    public var attestation: Attestation = .none
    public var challenge: [UInt8] = Array(0..<32)
    public var clientData = ClientDataFixture(type: "webauthn.create")
    public var rawClientData: [UInt8]?
    public var rpIDForHash = "example.org"
    public var flags: UInt8 = 0x45  // UP | UV | AT
    public var signCount: UInt32 = 0
    public var credentialID: [UInt8] = Array(repeating: 0xC1, count: 16)
    public var format: String?
    public var statementOverride: TestCBOR?
    public var tamperSignature = false
    public var trailingBytes: [UInt8] = []
    public var credentialType = "public-key"
    public var idOverride: String?
    /// The attestation key and x5c (leaf first) for `.packedFull`.
    public var attestationKey = P256.Signing.PrivateKey()
    public var x5c: [[UInt8]] = []

    public init(_ authenticator: SoftwareAuthenticator = .es256()) {
        self.authenticator = authenticator
    }

    public var clientDataJSON: [UInt8] { rawClientData ?? clientData.json(challenge: challenge) }

    public func authenticatorData() throws -> [UInt8] {
        let rpIDHash = Array(SHA256.hash(data: Array(rpIDForHash.utf8)))
        var data = rpIDHash + [flags] + TestCBOR.bigEndian(UInt64(signCount), count: 4)
        if flags & 0x40 != 0 {
            data += [UInt8](repeating: 0, count: 16) + TestCBOR.bigEndian(UInt64(credentialID.count), count: 2)
            data += credentialID + (try authenticator.coseKey.encoded)
        }
        return data + trailingBytes
    }

    public func statement(authData: [UInt8]) throws -> TestCBOR {
        if let statementOverride { return statementOverride }
        switch attestation {
        case .none:
            return .map([])
        case .packedSelf:
            var signature = try authenticator.sign(authData + Array(SHA256.hash(data: clientDataJSON)))
            if tamperSignature { signature[signature.count / 2] ^= 0x01 }
            return .map([(.text("alg"), .int(authenticator.algorithm)), (.text("sig"), .bytes(signature))])
        case .packedFull:
            let message = authData + Array(SHA256.hash(data: clientDataJSON))
            let signature = Array(try attestationKey.signature(for: message).derRepresentation)
            return .map([
                (.text("alg"), .int(-7)), (.text("sig"), .bytes(signature)), (.text("x5c"), .array(x5c.map(TestCBOR.bytes))),
            ])
        }
    }

    public func build() throws -> RegistrationCredential {
        let authData = try authenticatorData()
        let defaultFormat = attestation == .none ? "none" : "packed"
        let object = TestCBOR.map([
            (.text("fmt"), .text(format ?? defaultFormat)),
            (.text("attStmt"), try statement(authData: authData)),
            (.text("authData"), .bytes(authData)),
        ])
        return RegistrationCredential(
            id: idOverride ?? Base64URL.encode(credentialID),
            rawID: credentialID,
            type: credentialType,
            response: AuthenticatorAttestationResponse(clientDataJSON: clientDataJSON, attestationObject: object.encoded)
        )
    }
}

/// The clientDataJSON members tests vary.
public struct ClientDataFixture {
    public var type: String
    public var origin = "https://example.org"
    public var challengeOverride: String?
    public var crossOrigin: Bool?
    public var topOrigin: String?
    public var tokenBindingStatus: String?

    /// Client data of `type` ("webauthn.create" or "webauthn.get") from `origin`.
    public init(type: String, origin: String = "https://example.org") {
        self.type = type
        self.origin = origin
    }

    public func json(challenge: [UInt8]) -> [UInt8] {
        var members = [
            "\"type\":\"\(type)\"",
            "\"challenge\":\"\(challengeOverride ?? Base64URL.encode(challenge))\"",
            "\"origin\":\"\(origin)\"",
        ]
        if let crossOrigin { members.append("\"crossOrigin\":\(crossOrigin)") }
        if let topOrigin { members.append("\"topOrigin\":\"\(topOrigin)\"") }
        if let tokenBindingStatus { members.append("\"tokenBinding\":{\"status\":\"\(tokenBindingStatus)\"}") }
        return Array("{\(members.joined(separator: ","))}".utf8)
    }
}

extension WebAuthnRelyingParty {
    /// The relying party the fixtures are valid for.
    public static var fixture: WebAuthnRelyingParty {
        WebAuthnRelyingParty(rpID: "example.org", allowedOrigins: ["https://example.org"])
    }
}
