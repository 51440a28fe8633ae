public import Foundation

/// Browser sessions of the hosted login page.
public protocol BrowserSessionRepository: Sendable {
    /// Stores a new session.
    func createBrowserSession(_ session: BrowserSession) async throws
    /// The session whose secret has one of `hashes` (current and previous HMAC keys), in any state.
    func browserSession(secretHashes: [[UInt8]]) async throws -> BrowserSession?
    /// The session with this public id, in any state, or nil.
    func browserSession(id: String) async throws -> BrowserSession?
    /// Records a use of the session (idle expiry counts from `at`).
    func touchBrowserSession(id: String, at: Date) async throws
    /// The user's sessions that are not revoked and not past their absolute end, newest first.
    func browserSessions(userID: String, at: Date) async throws -> [BrowserSession]
    /// Every session that is not revoked and not past its absolute end, newest first.
    func allBrowserSessions(at: Date, limit: Int) async throws -> [BrowserSession]
    /// Revokes one session, only if it belongs to `userID` when that is given; true when
    /// a live session was revoked.
    func revokeBrowserSession(id: String, userID: String?, at: Date) async throws -> Bool
    /// Revokes every session of the user; returns how many.
    @discardableResult
    func revokeBrowserSessions(userID: String, at: Date) async throws -> Int
    /// Records that `use.clientID` was answered from `use.sessionID` (once per sid; kept
    /// until `use.expiresAt`).
    func recordSessionApplication(_ use: SessionApplication) async throws
    /// The applications answered from the session, oldest first.
    func sessionApplications(sessionID: String) async throws -> [SessionApplication]
}

/// An application answered from a browser session: who a logout of the session must reach.
public struct SessionApplication: Sendable, Equatable {
    public var sessionID: String
    public var clientID: String
    /// The `sid` the application's id_token carried: the session's id, or that of the
    /// session it replaced when the same person signed in again.
    public var sid: String
    public var createdAt: Date
    public var expiresAt: Date

    /// Creates a record.
    public init(sessionID: String, clientID: String, sid: String, createdAt: Date, expiresAt: Date) {
        (self.sessionID, self.clientID, self.sid) = (sessionID, clientID, sid)
        (self.createdAt, self.expiresAt) = (createdAt, expiresAt)
    }
}
