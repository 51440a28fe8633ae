public import Foundation
public import SesameAPI

/// An app's connection to a Sesame server: passwordless codes, token renewal and revocation,
/// and the profile, over Auth0's Authentication API. Every id_token it returns has been
/// verified against the server's JWKS.
///
/// ```swift
/// let sesame = SesameClient(domain: URL(string: "https://login.example.com")!, clientID: "2DkM…")
/// _ = try await sesame.startPasswordless(email: "ana@example.com")
/// let credentials = try await sesame.login(email: "ana@example.com", code: "123456")
/// let profile = try await sesame.userInfo(accessToken: credentials.accessToken)
/// ```
public struct SesameClient: Sendable {
    /// The server, e.g. `https://login.example.com`.
    public let domain: URL
    /// The application's `client_id`.
    public let clientID: String
    /// The scope a login asks for unless told otherwise.
    public static let defaultScope = "openid profile email phone offline_access"

    var transport: HTTPTransport
    let verifier: IDTokenVerifier
    private let now: @Sendable () -> Date

    /// Creates a client that sends its requests through `exchange`. Apps use
    /// `init(domain:clientID:session:)` from the `SesameClient` module, which sends through
    /// `URLSession`.
    @_spi(Sesame) public init(
        domain: URL, clientID: String, exchange: @escaping HTTPExchange.Send,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.domain = domain
        self.clientID = clientID
        transport = HTTPTransport(base: domain, exchange: exchange)
        verifier = IDTokenVerifier(transport: transport, clientID: clientID)
        self.now = now
    }

    /// Sends a one-time code (or, with `send: .link`, a magic link) to `email`. The answer is
    /// the same whether or not the address has an account.
    /// - Throws: ``SesameClientError``; ``SesameClientError/isRateLimited`` with the reset time.
    @discardableResult
    public func startPasswordless(email: String, send: PasswordlessSend = .code) async throws -> PasswordlessStart {
        try await start(["connection": "email", "email": email, "send": send.rawValue])
    }

    /// Sends a one-time code by text message to `phoneNumber` (E.164, `+14155550123`).
    @discardableResult
    public func startPasswordless(phoneNumber: String) async throws -> PasswordlessStart {
        try await start(["connection": "sms", "phone_number": phoneNumber, "send": "code"])
    }

    /// Signs in with the code mailed to `email`.
    /// - Throws: ``SesameClientError/isInvalidCredentials`` for a wrong, used or expired code.
    public func login(email: String, code: String, scope: String = defaultScope, audience: String? = nil) async throws
        -> Credentials
    {
        try await login(realm: "email", username: email, code: code, scope: scope, audience: audience)
    }

    /// Signs in with the code texted to `phoneNumber`.
    public func login(phoneNumber: String, code: String, scope: String = defaultScope, audience: String? = nil)
        async throws -> Credentials
    {
        try await login(realm: "sms", username: phoneNumber, code: code, scope: scope, audience: audience)
    }

    /// New tokens for a refresh token; the old refresh token is spent (rotation).
    public func renew(refreshToken: String, scope: String? = nil) async throws -> Credentials {
        try await tokens([
            "grant_type": "refresh_token", "client_id": clientID, "refresh_token": refreshToken, "scope": scope,
        ])
    }

    /// Revokes a refresh token's whole login (logout): it and its access tokens stop working.
    public func revoke(refreshToken: String) async throws {
        _ = try await transport.post("/oauth/revoke", ["client_id": clientID, "token": refreshToken])
    }

    /// The signed-in person's profile, as the access token's scope releases it.
    public func userInfo(accessToken: String) async throws -> UserInfo {
        try transport.decode(UserInfo.self, try await transport.get("/userinfo", bearer: accessToken))
    }

    private func start(_ fields: [String: String?]) async throws -> PasswordlessStart {
        var body = fields
        body["client_id"] = clientID
        let answer = try await transport.post("/passwordless/start", body)
        let start = try transport.decode(PasswordlessStartBody.self, answer)
        return PasswordlessStart(
            id: start.id, remaining: answer.headers["x-ratelimit-remaining"].flatMap { Int($0) },
            resetsAt: answer.headers["x-ratelimit-reset"].flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:)))
    }

    private func login(realm: String, username: String, code: String, scope: String, audience: String?) async throws
        -> Credentials
    {
        try await tokens([
            "grant_type": "http://auth0.com/oauth/grant-type/passwordless/otp", "client_id": clientID, "realm": realm,
            "username": username, "otp": code, "scope": scope, "audience": audience,
        ])
    }

    /// A token request, and the id_token in its answer verified before anyone sees it.
    func tokens(_ body: [String: String?]) async throws -> Credentials {
        try await tokens(json: body.compactMapValues { $0 })
    }

    /// A token request with a body that may nest objects (the webauthn grant's answer).
    func tokens(json body: [String: Any]) async throws -> Credentials {
        let received = now()
        let answer = try transport.decode(TokenBody.self, try await transport.postJSON("/oauth/token", body))
        if let idToken = answer.idToken { try await verifier.verify(idToken, nonce: nil, now: received) }
        return Credentials(answer, receivedAt: received)
    }
}

/// What `/passwordless/start` sends to an email address.
public enum PasswordlessSend: String, Sendable {
    /// A one-time code to type into the app.
    case code
    /// A magic link that signs in when opened.
    case link
}
