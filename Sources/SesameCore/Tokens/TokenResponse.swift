/// The body of a successful token response (RFC 6749 §5.1, Auth0's field set).
public struct TokenResponse: Sendable, Equatable {
    public var accessToken: String
    public var tokenType = "Bearer"
    public var expiresIn: Int
    public var idToken: String?
    public var refreshToken: String?
    public var scope: String

    /// Creates a token response.
    public init(accessToken: String, expiresIn: Int, idToken: String?, refreshToken: String?, scope: String) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.scope = scope
    }
}

/// What a login is for: the application, the scope and the optional audience and nonce.
public struct TokenGrantRequest: Sendable, Equatable {
    public var application: Application
    public var scope: Scope
    public var audience: String?
    public var nonce: String?
    /// The browser session the login came from: the id_token's `sid`.
    public var sessionID: String?
    /// The DPoP key the client proved possession of: the tokens are bound to it (RFC 9449).
    public var dpopThumbprint: String?

    /// Creates a grant request.
    public init(application: Application, scope: Scope, audience: String? = nil, nonce: String? = nil) {
        self.application = application
        self.scope = scope
        self.audience = audience
        self.nonce = nonce
    }
}
