/// A browser session as `/me/sessions` and `sesame admin sessions list --json` show it. It
/// names the session by its public id; the cookie's secret is never shown.
public struct SessionBody: Codable, Sendable, Equatable {
    public var id: String
    public var userID: String
    /// How the person signed in during the session (`hosted_otp`, `hosted_passkey`, `magic_link`).
    public var methods: [String]
    /// ISO 8601 instants.
    public var createdAt: String
    public var authenticatedAt: String
    public var lastSeenAt: String
    public var expiresAt: String
    public var ip: String?
    public var userAgent: String?
    /// True for the session of the browser asking, when a browser asks.
    public var current: Bool?

    enum CodingKeys: String, CodingKey {
        case id, methods, ip, current
        case userID = "user_id", createdAt = "created_at", authenticatedAt = "authenticated_at"
        case lastSeenAt = "last_seen_at", expiresAt = "expires_at", userAgent = "user_agent"
    }

    /// Creates a body.
    public init(
        id: String, userID: String, methods: [String], createdAt: String, authenticatedAt: String, lastSeenAt: String,
        expiresAt: String, ip: String?, userAgent: String?, current: Bool? = nil
    ) {
        self.id = id
        self.userID = userID
        self.methods = methods
        self.createdAt = createdAt
        self.authenticatedAt = authenticatedAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
        self.ip = ip
        self.userAgent = userAgent
        self.current = current
    }
}
