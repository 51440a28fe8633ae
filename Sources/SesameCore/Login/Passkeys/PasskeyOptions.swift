import Foundation

/// What `/passkey/register` and `/passkey/challenge` answer: the opaque session the client
/// sends back with the authenticator's response, and the options to give the authenticator.
public struct PasskeyChallenge: Sendable, Encodable {
    public var authSession: String
    public var options: PasskeyRequestOptions

    enum CodingKeys: String, CodingKey {
        case authSession = "auth_session", options = "authn_params_public_key"
    }
}

/// `PublicKeyCredentialCreationOptions` or `PublicKeyCredentialRequestOptions` in their JSON
/// form (binary values base64url), as Auth0's Passkey API sends them.
public enum PasskeyRequestOptions: Sendable, Encodable {
    case creation(CreationOptions)
    case request(RequestOptions)

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .creation(let options): try options.encode(to: encoder)
        case .request(let options): try options.encode(to: encoder)
        }
    }

    /// Options for `navigator.credentials.create`.
    public struct CreationOptions: Sendable, Encodable {
        public var challenge: String
        public var timeout: Int
        public var rp: RelyingParty
        public var user: UserEntity
        public var pubKeyCredParams: [CredentialParameter]
        public var authenticatorSelection: AuthenticatorSelection
        public var attestation: String
        /// Passkeys the account already has, so an authenticator holding one says so instead
        /// of making a second.
        public var excludeCredentials: [CredentialDescriptor]? = nil
    }

    /// A credential named in `excludeCredentials`.
    public struct CredentialDescriptor: Sendable, Encodable {
        public var type = "public-key"
        public var id: String
        public var transports: [String]?
    }

    /// Options for `navigator.credentials.get` (discoverable credentials: no allow list).
    public struct RequestOptions: Sendable, Encodable {
        public var challenge: String
        public var timeout: Int
        public var rpId: String
        public var userVerification: String
    }

    public struct RelyingParty: Sendable, Encodable {
        public var id: String
        public var name: String
    }

    public struct UserEntity: Sendable, Encodable {
        public var id: String
        public var name: String
        public var displayName: String
    }

    public struct CredentialParameter: Sendable, Encodable {
        public var type = "public-key"
        public var alg: Int
    }

    public struct AuthenticatorSelection: Sendable, Encodable {
        public var residentKey: String
        public var requireResidentKey: Bool
        public var userVerification: String
    }
}
