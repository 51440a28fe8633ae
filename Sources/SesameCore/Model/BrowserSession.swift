public import Foundation

/// A person signed in to the hosted login page in one browser (Auth0's "session"): what
/// lets a second application, or a reload, get a code without asking again.
///
/// The browser holds a random secret in a cookie; only its HMAC is stored. ``id`` is a
/// separate public handle for listing and revoking, so no list ever shows a usable secret.
public struct BrowserSession: Sendable, Codable, Equatable {
    /// The public id (`/me/sessions`, `sesame admin sessions`).
    public var id: String
    /// HMAC of the cookie's secret.
    public var secretHash: [UInt8]
    /// The user's `user_id` (`email|…`).
    public var userID: String
    /// How the person proved who they are in this session (``LoginMethod`` raw values), in order.
    public var methods: [String]
    public var createdAt: Date
    /// When the person last proved who they are (`auth_time` of codes issued from it).
    public var authTime: Date
    /// When a request last used the session (idle expiry counts from here).
    public var lastSeenAt: Date
    /// The absolute end of the session, however active it is.
    public var expiresAt: Date
    public var ip: String?
    public var userAgent: String?
    /// Set when a logout, the user or an administrator ended it.
    public var revokedAt: Date?

    /// Creates a session record.
    public init(
        id: String, secretHash: [UInt8], userID: String, methods: [String], createdAt: Date, authTime: Date,
        lastSeenAt: Date, expiresAt: Date, ip: String?, userAgent: String?, revokedAt: Date? = nil
    ) {
        self.id = id
        self.secretHash = secretHash
        self.userID = userID
        self.methods = methods
        self.createdAt = createdAt
        self.authTime = authTime
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
        self.ip = ip
        self.userAgent = userAgent
        self.revokedAt = revokedAt
    }

    /// Live at `now`: not revoked, before its absolute end, and used within `idleLifetime`.
    public func isLive(at now: Date, idleLifetime: TimeInterval) -> Bool {
        revokedAt == nil && now < expiresAt && now < lastSeenAt.addingTimeInterval(idleLifetime)
    }
}
