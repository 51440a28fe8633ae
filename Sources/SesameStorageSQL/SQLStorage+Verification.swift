public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage {
    public func verifyAddress(
        userID id: String, keepingChallenge challengeID: String?, at: Date,
        _ transform: @escaping @Sendable (inout User) throws -> Void
    ) async throws -> AddressVerification {
        try await executor.transaction { db in
            let user = try await Self.updateUser(id: id, transform, db: db)
            let owner = user.userID
            var outcome = AddressVerification(user: user)
            outcome.passkeys = try await db.raw(
                """
                DELETE FROM passkey_credentials WHERE user_id = \(bind: user.id) AND created_at <= \(bind: at.sqlValue)
                RETURNING id
                """
            ).all().count
            outcome.deviceKeys = try await db.raw("DELETE FROM device_credentials WHERE user_id = \(bind: owner) RETURNING id")
                .all().count
            try await Self.revokeRefreshTokens(userID: owner, at: at, db: db)
            outcome.authorizationCodes = try await db.raw(
                "DELETE FROM authorization_codes WHERE user_id = \(bind: owner) AND consumed_at IS NULL RETURNING user_id"
            ).all().count
            outcome.linkRequests = try await Self.refuseLinkRequests(of: user, keeping: challengeID, at: at, db: db)
            outcome.passkeySessions = try await Self.endPasskeySessions(of: user, at: at, db: db)
            outcome.browserSessions = try await db.raw(
                """
                UPDATE browser_sessions SET revoked_at = \(bind: at.sqlValue)
                WHERE user_id = \(bind: owner) AND revoked_at IS NULL RETURNING id
                """
            ).all().count
            return outcome
        }
    }

    /// Refuses the address's link requests that could still sign someone in: a stranger who
    /// started one while the address was unproven holds its poll secret.
    private static func refuseLinkRequests(
        of user: User, keeping challengeID: String?, at: Date, db: any SQLDatabase
    ) async throws -> Int {
        let other: SQLQueryString = challengeID.map { "AND challenge_id <> \(bind: $0)" } ?? ""
        return try await db.raw(
            """
            UPDATE link_requests SET status = \(bind: LinkRequest.Status.denied.rawValue), decided_at = \(bind: at.sqlValue)
            WHERE connection = \(bind: user.connection) AND recipient = \(bind: user.identifier)
            AND status IN (\(bind: LinkRequest.Status.pending.rawValue), \(bind: LinkRequest.Status.approved.rawValue))
            \(other) RETURNING id
            """
        ).all().count
    }

    /// Ends the live passkey ceremonies that would add a passkey to the user (an enrolment
    /// names the user) or create an account for the address (a signup names it). The user a
    /// session names is stored as JSON (``jsonText(_:)``), so it is matched by its text.
    private static func endPasskeySessions(of user: User, at: Date, db: any SQLDatabase) async throws -> Int {
        let byID = likePattern("\"id\":" + (try jsonText(user.id)))
        let byIdentifier = likePattern("\"identifier\":" + (try jsonText(user.identifier)))
        return try await db.raw(
            """
            UPDATE passkey_sessions SET consumed_at = \(bind: at.sqlValue)
            WHERE connection = \(bind: user.connection) AND consumed_at IS NULL AND expires_at > \(bind: at.sqlValue)
            AND (pending_user LIKE \(bind: byID) ESCAPE '\\' OR pending_user LIKE \(bind: byIdentifier) ESCAPE '\\')
            RETURNING id
            """
        ).all().count
    }

    /// A `LIKE` pattern that finds `text` anywhere, matched as typed.
    private static func likePattern(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        return "%\(escaped)%"
    }
}
