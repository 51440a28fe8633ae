public import Foundation
public import Logging

/// Browser sessions seen from outside a browser: listed and ended by an administrator
/// (`sesame admin sessions`) or by their owner (`/me/sessions`, through ``BrowserSessions``).
public struct SessionAdministration: Sendable {
    let storage: any SesameStorage
    let clock: any SesameClock
    let audit: AuditLog
    let idleLifetime: TimeInterval
    /// Who hears of a session's end.
    let applications: SessionApplications

    /// Creates the service; `settings` gives the idle lifetime a live session is within;
    /// `wake` wakes the delivery worker after logout tokens are queued.
    public init(
        storage: any SesameStorage, settings: LoginSettings, clock: any SesameClock = SystemClock(),
        random: any RandomSource = SystemRandomSource(), logger: Logger = Logger(label: "sesame"),
        wake: (@Sendable () async -> Void)? = nil
    ) {
        self.storage = storage
        self.clock = clock
        audit = AuditLog(storage: storage, clock: clock, logger: logger)
        idleLifetime = TimeInterval(settings.sessionIdleLifetime)
        applications = SessionApplications(storage: storage, clock: clock, random: random, wake: wake)
    }

    /// The user's live sessions, newest first.
    public func list(userID: String) async throws -> [BrowserSession] {
        let now = clock.now()
        return try await storage.browserSessions(userID: userID, at: now).filter {
            $0.isLive(at: now, idleLifetime: idleLifetime)
        }
    }

    /// One live session (`GET /api/v2/sessions/{id}`).
    /// - Throws: 404 when there is no such live session.
    public func session(id: String) async throws -> BrowserSession {
        guard let session = try await storage.browserSession(id: id), session.isLive(at: clock.now(), idleLifetime: idleLifetime)
        else { throw SesameError(.notFound, .notFound, "No such session.") }
        return session
    }

    /// When the session ends unless it is used again.
    public func idleExpiry(of session: BrowserSession) -> Date {
        session.lastSeenAt.addingTimeInterval(idleLifetime)
    }

    /// Every live session, newest first.
    public func listAll(limit: Int) async throws -> [BrowserSession] {
        let now = clock.now()
        return try await storage.allBrowserSessions(at: now, limit: limit).filter {
            $0.isLive(at: now, idleLifetime: idleLifetime)
        }
    }

    /// Ends one session; with `userID`, only one of that user's.
    /// - Throws: 404 when there is no such live session.
    public func revoke(id: String, userID: String?) async throws {
        guard try await storage.revokeBrowserSession(id: id, userID: userID, at: clock.now()) else {
            throw SesameError(.notFound, .notFound, "No such session.")
        }
        await audit.record(.sessionEnded, user: userID, detail: "session \(id) ended")
        if let session = try await storage.browserSession(id: id) { try await applications.sessionsEnded([session]) }
    }

    /// Ends every session of the user; returns how many.
    @discardableResult
    public func revokeAll(userID: String) async throws -> Int {
        let count = try await applications.endSessions(userID: userID)
        await audit.record(.sessionEnded, user: userID, detail: "\(count) session(s) ended")
        return count
    }
}
