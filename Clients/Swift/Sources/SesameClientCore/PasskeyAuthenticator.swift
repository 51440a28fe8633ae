import Foundation
import SesameAPI

/// What a passkey ceremony asks of an authenticator: AuthenticationServices on Apple
/// platforms, `SesameSoftwareAuthenticator` in tests, headless clients and the CLI.
public protocol PasskeyAuthenticator: Sendable {
    /// Creates a discoverable credential for `request.userID` and answers with the browser's
    /// `RegistrationResponseJSON` shape.
    func register(_ request: PasskeyRegistrationRequest) async throws -> PasskeyResponse
    /// Signs `request.challenge` with a credential for `request.rpID` and answers with the
    /// browser's `AuthenticationResponseJSON` shape.
    func authenticate(_ request: PasskeyAuthenticationRequest) async throws -> PasskeyResponse
}

/// A registration ceremony's options, decoded from Sesame's `authn_params_public_key`.
public struct PasskeyRegistrationRequest: Sendable, Equatable {
    public var rpID: String
    /// The origin the client data names (the server's own, for a native or headless client).
    public var origin: String
    public var challenge: [UInt8]
    public var userID: [UInt8]
    public var userName: String

    /// Creates a request.
    public init(rpID: String, origin: String, challenge: [UInt8], userID: [UInt8], userName: String) {
        self.rpID = rpID
        self.origin = origin
        self.challenge = challenge
        self.userID = userID
        self.userName = userName
    }
}

/// An authentication ceremony's options.
public struct PasskeyAuthenticationRequest: Sendable, Equatable {
    public var rpID: String
    public var origin: String
    public var challenge: [UInt8]

    /// Creates a request.
    public init(rpID: String, origin: String, challenge: [UInt8]) {
        self.rpID = rpID
        self.origin = origin
        self.challenge = challenge
    }
}

/// An authenticator's answer in the browser's JSON shape (`PublicKeyCredential.toJSON()`),
/// every binary member base64url.
public struct PasskeyResponse: Codable, Sendable, Equatable {
    public var id: String
    public var rawId: String
    public var type = "public-key"
    public var response: [String: String]
    public var clientExtensionResults: [String: String] = [:]
    /// `platform` or `cross-platform` (a security key), when the authenticator says.
    public var authenticatorAttachment: String?

    /// An answer for the credential `credentialID` with these `response` members.
    public init(credentialID: [UInt8], response: [String: String]) {
        id = Base64URL.encode(credentialID)
        rawId = id
        self.response = response
    }
}

extension SesameClient {
    /// Signs up with a passkey: the server's options, the authenticator's new credential,
    /// then the webauthn grant. The account's address stays unverified (and gets no refresh
    /// token) until a code or link for it is used.
    public func signUpWithPasskey(
        email: String, name: String? = nil, authenticator: any PasskeyAuthenticator, scope: String = defaultScope
    ) async throws -> Credentials {
        let started = try await passkeyStart(
            "/passkey/register", ["client_id": clientID, "user_profile": ["email": email, "name": name ?? email]])
        let options = started.options
        guard let userID = (options["user"] as? [String: Any])?["id"] as? String, let userBytes = Base64URL.decode(userID) else {
            throw SesameClientError.invalidResponse("registration options without a user id")
        }
        let request = PasskeyRegistrationRequest(
            rpID: try Self.rpID(options), origin: try await passkeyOrigin(), challenge: try Self.challenge(options),
            userID: userBytes,
            userName: email)
        return try await passkeyFinish(started.session, try await authenticator.register(request), scope: scope)
    }

    /// Signs in with a discoverable passkey: no address is named, the authenticator picks.
    public func loginWithPasskey(authenticator: any PasskeyAuthenticator, scope: String = defaultScope) async throws
        -> Credentials
    {
        let started = try await passkeyStart("/passkey/challenge", ["client_id": clientID])
        let request = PasskeyAuthenticationRequest(
            rpID: try Self.rpID(started.options), origin: try await passkeyOrigin(),
            challenge: try Self.challenge(started.options))
        return try await passkeyFinish(started.session, try await authenticator.authenticate(request), scope: scope)
    }

    /// The origin a native or headless client's ceremony names: the issuer's own
    /// (`scheme://host[:port]`), which Sesame always accepts, whatever address reached it.
    func passkeyOrigin() async throws -> String {
        guard let issuer = URL(string: try await issuer()), let scheme = issuer.scheme, let host = issuer.host else {
            throw SesameClientError.invalidResponse("the issuer is not a URL")
        }
        return "\(scheme)://\(host)" + (issuer.port.map { ":\($0)" } ?? "")
    }

    private func passkeyStart(_ path: String, _ body: [String: Any]) async throws -> (session: String, options: [String: Any]) {
        let answer = try await transport.postJSON(path, body)
        guard let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
            let session = object["auth_session"] as? String, let options = object["authn_params_public_key"] as? [String: Any]
        else { throw SesameClientError.invalidResponse("passkey options without auth_session") }
        return (session, options)
    }

    private func passkeyFinish(_ session: String, _ response: PasskeyResponse, scope: String) async throws -> Credentials {
        let answer = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(response))
        return try await tokens(
            json: [
                "grant_type": "urn:okta:params:oauth:grant-type:webauthn", "client_id": clientID, "auth_session": session,
                "authn_response": answer, "scope": scope,
            ])
    }

    private static func rpID(_ options: [String: Any]) throws -> String {
        guard let id = (options["rp"] as? [String: Any])?["id"] as? String ?? options["rpId"] as? String else {
            throw SesameClientError.invalidResponse("passkey options without an RP ID")
        }
        return id
    }

    private static func challenge(_ options: [String: Any]) throws -> [UInt8] {
        guard let text = options["challenge"] as? String, let bytes = Base64URL.decode(text) else {
            throw SesameClientError.invalidResponse("passkey options without a challenge")
        }
        return bytes
    }
}
