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
}
