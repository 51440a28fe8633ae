import Foundation

/// Which applications each browser session answered, and what ending a session tells them
/// (OpenID Connect Back-Channel and Front-Channel Logout 1.0). Every way a session ends
/// (logout, the person at `/me/sessions`, an operator, a block or a delete of the user)
/// passes through ``sessionsEnded(_:)``.
public struct SessionApplications: Sendable {
    let storage: any SesameStorage
    let clock: any SesameClock
    let random: any RandomSource
    /// Wakes this instance's delivery worker; without one (the CLI), the tokens wait in the
    /// durable outbox for a server's worker to find them.
    let wake: (@Sendable () async -> Void)?

    /// How long a logout token is retried: an application down for a day still hears of
    /// the logout when it comes back.
    static let retryWindow: TimeInterval = 24 * 3600

    /// Records that `clientID` was answered from `session`, under the session's own `sid`.
    func record(_ session: BrowserSession, clientID: String) async throws {
        try await storage.recordSessionApplication(
            SessionApplication(
                sessionID: session.id, clientID: clientID, sid: session.id, createdAt: clock.now(),
                expiresAt: session.expiresAt))
    }

    /// The same person signed in again: the new session answers for the applications of the
    /// one it replaced, under the `sid` they were given, so its logout still reaches them.
    func carryOver(from previous: BrowserSession, to session: BrowserSession) async throws {
        for use in try await storage.sessionApplications(sessionID: previous.id) {
            try await storage.recordSessionApplication(
                SessionApplication(
                    sessionID: session.id, clientID: use.clientID, sid: use.sid, createdAt: use.createdAt,
                    expiresAt: session.expiresAt))
        }
    }

    /// Ends every session of the user and tells their applications; returns how many ended.
    @discardableResult
    func endSessions(userID: String) async throws -> Int {
        let ending = try await storage.browserSessions(userID: userID, at: clock.now())
        let count = try await storage.revokeBrowserSessions(userID: userID, at: clock.now())
        try await sessionsEnded(ending)
        return count
    }

    /// Queues a logout token for each application the ended `sessions` answered that
    /// registered a back-channel logout URI.
    func sessionsEnded(_ sessions: [BrowserSession]) async throws {
        var notices: [(uri: String, notice: LogoutNotice)] = []
        for session in sessions {
            for use in try await storage.sessionApplications(sessionID: session.id) {
                guard let application = try await storage.application(clientID: use.clientID),
                    let uri = application.backchannelLogoutURI
                else { continue }
                notices.append(
                    (uri, LogoutNotice(clientID: use.clientID, subject: session.userID, sid: use.sid, jti: random.token(16))))
            }
        }
        // Most sessions' applications registered no URI: only then are the HMAC keys read.
        guard !notices.isEmpty else { return }
        let now = clock.now()
        let seal = PayloadSeal(secrets: try await storage.hmacSecrets())
        let deliveries = try notices.map { uri, notice in
            QueuedDelivery(
                id: random.orderedHex(at: now), channel: LogoutNotice.channel, recipient: uri,
                payload: try seal.seal(JSONEncoder().encode(notice)),
                deadline: now.addingTimeInterval(Self.retryWindow), createdAt: now)
        }
        try await storage.enqueueDeliveries(deliveries)
        await wake?()
    }

    /// The front-channel logout pages of the applications `session` answered, each with the
    /// `iss` and `sid` query parameters the specification asks for.
    public func frontchannelLogoutURLs(of session: BrowserSession, issuer: String) async throws -> [String] {
        var urls: [String] = []
        for use in try await storage.sessionApplications(sessionID: session.id) {
            guard let application = try await storage.application(clientID: use.clientID),
                let uri = application.frontchannelLogoutURI, var components = URLComponents(string: uri)
            else { continue }
            components.queryItems =
                (components.queryItems ?? []) + [
                    URLQueryItem(name: "iss", value: issuer), URLQueryItem(name: "sid", value: use.sid),
                ]
            if let url = components.string, !urls.contains(url) { urls.append(url) }
        }
        return urls
    }
}
