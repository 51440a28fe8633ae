public import Foundation

/// Browser sessions of the hosted login page: begun by every hosted login, resumed by the
/// next `/authorize` of any application (single sign-on), ended by logout, by the person at
/// `/me/sessions`, by an administrator, or by blocking or deleting the user.
///
/// The cookie carries a random secret; storage keeps only its HMAC. Every login begins a new
/// session and revokes the one the browser showed, so a secret planted in a browser before
/// the login (session fixation) never becomes a signed-in session.
public struct BrowserSessions: Sendable, LoginService {
    let context: LoginContext
    let administration: SessionAdministration

    /// Uses are recorded at most this often, so a busy session is not a write per request.
    static let touchInterval: TimeInterval = 60

    /// A session begun: the secret for the browser's cookie, and the record.
    public struct Begun: Sendable {
        public let secret: String
        public let session: BrowserSession
    }

    /// Begins a session for `user` after a login by `method`, replacing the session of
    /// `presented` (the browser's cookie, if any). A live session of the same user keeps its
    /// earlier methods; one of another user is simply revoked.
    /// - Parameter authTime: when the person proved who they are, when earlier than now (a link
    ///   approved on another device); the session's age for `max_age` and recent-login checks.
    public func begin(
        user: User, method: LoginMethod, presented: String?, ip: String?, userAgent: String?, authTime: Date? = nil
    ) async throws -> Begun {
        let now = clock.now()
        var methods: [String] = []
        var replaced: BrowserSession?
        if let previous = try await lookup(presented), previous.revokedAt == nil {
            _ = try await storage.revokeBrowserSession(id: previous.id, userID: nil, at: now)
            if previous.userID == user.userID, previous.isLive(at: now, idleLifetime: idleLifetime) {
                methods = previous.methods
                replaced = previous
            } else {
                // Another person's session, or a dead one, ends here: its applications hear of it.
                try await applications.sessionsEnded([previous])
            }
        }
        if !methods.contains(method.rawValue) { methods.append(method.rawValue) }
        let secret = random.token(32)
        let session = BrowserSession(
            id: random.hex(12), secretHash: hasher.hash(secret, purpose: .browserSession), userID: user.userID,
            methods: methods, createdAt: now, authTime: authTime ?? now, lastSeenAt: now,
            expiresAt: now.addingTimeInterval(TimeInterval(settings.sessionLifetime)), ip: ip.map { String($0.prefix(64)) },
            userAgent: userAgent.map { String($0.prefix(256)) })
        try await storage.createBrowserSession(session)
        if let replaced { try await applications.carryOver(from: replaced, to: session) }
        return Begun(secret: secret, session: session)
    }

    /// The live session of `secret` and its user, recording the use; nil when there is none,
    /// it has ended, or its user is blocked, deleted, or had every token revoked after it began.
    public func resume(_ secret: String?) async throws -> (BrowserSession, User)? {
        let now = clock.now()
        guard let session = try await lookup(secret), session.isLive(at: now, idleLifetime: idleLifetime),
            let (_, id) = User.parse(userID: session.userID), let user = try await storage.user(id: id), !user.blocked,
            user.tokensValidAfter.map({ $0 <= session.authTime }) ?? true
        else { return nil }
        if now.timeIntervalSince(session.lastSeenAt) >= Self.touchInterval {
            try await storage.touchBrowserSession(id: session.id, at: now)
        }
        return (session, user)
    }

    /// Ends the session of `secret` (logout); returns it when there was one.
    @discardableResult
    public func end(_ secret: String?) async throws -> BrowserSession? {
        guard let session = try await lookup(secret), session.revokedAt == nil else { return nil }
        _ = try await storage.revokeBrowserSession(id: session.id, userID: nil, at: clock.now())
        await coordinator.audit(.sessionEnded, user: session.userID, detail: "logout of session \(session.id)")
        try await applications.sessionsEnded([session])
        return session
    }

    /// Revokes a session begun for a login that lost its race (another request finished it
    /// first): its secret never reached a browser, so it is no logout and is not audited as one.
    func discard(_ session: BrowserSession) async throws {
        _ = try await storage.revokeBrowserSession(id: session.id, userID: nil, at: clock.now())
    }

    /// The scopes a person's own session list needs (`/me/sessions`).
    public enum Scopes {
        public static let read = "read:me:sessions"
        public static let delete = "delete:me:sessions"
    }

    /// The token owner's live sessions (`GET /me/sessions`).
    public func list(_ grant: AccessGrant) async throws -> [BrowserSession] {
        try grant.require(scope: Scopes.read)
        return try await administration.list(userID: grant.user.userID)
    }

    /// Ends one of the token owner's sessions, or all of them with a nil `id`; another
    /// person's session answers like one that does not exist.
    public func revoke(id: String?, _ grant: AccessGrant) async throws {
        try grant.require(scope: Scopes.delete)
        guard let id else {
            try await administration.revokeAll(userID: grant.user.userID)
            return
        }
        try await administration.revoke(id: id, userID: grant.user.userID)
    }

    /// The session of `secret` in any state.
    func lookup(_ secret: String?) async throws -> BrowserSession? {
        guard let secret, !secret.isEmpty, secret.count <= 128 else { return nil }
        return try await storage.browserSession(secretHashes: hasher.candidates(secret, purpose: .browserSession))
    }

    /// Records that `session` answered the application `clientID`, which a logout must reach.
    public func answered(_ session: BrowserSession, clientID: String) async throws {
        try await applications.record(session, clientID: clientID)
    }

    /// The front-channel logout pages of the applications `session` answered (with `iss`
    /// and `sid`), for the logout page to load in hidden frames.
    public func frontchannelLogoutURLs(of session: BrowserSession) async throws -> [String] {
        try await applications.frontchannelLogoutURLs(of: session, issuer: settings.issuer)
    }

    /// Who hears of a session's end.
    var applications: SessionApplications { administration.applications }

    private var idleLifetime: TimeInterval { TimeInterval(settings.sessionIdleLifetime) }
}
