public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: ChallengeRetryRepository {
    public func attemptConsumedChallenge(
        connection: String, recipient: String, at: Date, retry: ChallengeRetry, within budget: [RateLimitCounter]
    ) async throws -> ConsumedChallengeAttempt? {
        let hashes = SQLList(retry.acceptance.secretHashes.map { SQLBind(Data($0)) })
        var meets: SQLQueryString = "secret_hash IN (\(hashes))"
        if let clientID = retry.acceptance.clientID { meets = "\(meets) AND client_id = \(bind: clientID)" }
        // One statement counts the retry and takes the lease, so of concurrent retries one
        // works on the login (both CASEs see the row as it was before the update). The MAX(seq)
        // guard keeps a superseded code dead, and an answered exchange keeps a used code used.
        let takes: SQLQueryString = "\(meets) AND retry_lease_until <= \(bind: at.sqlValue)"
        let attempt: SQLQueryString = """
            UPDATE challenges SET attempts = attempts + 1,
              retry_lease_owner = CASE WHEN \(takes) THEN \(bind: retry.leaseOwner) ELSE retry_lease_owner END,
              retry_lease_until = CASE WHEN \(takes) THEN \(bind: retry.leaseUntil.sqlValue) ELSE retry_lease_until END
            WHERE seq = (SELECT MAX(seq) FROM challenges WHERE connection = \(bind: connection)
                         AND recipient = \(bind: recipient))
            AND consumed_at IS NOT NULL AND consumed_at >= \(bind: retry.consumedSince.sqlValue)
            AND retry_lease_until IS NOT NULL AND answered_at IS NULL
            AND attempts < max_attempts + \(bind: retry.retries) \(Self.notSpent(budget))
            RETURNING *
            """
        return try await executor.write { db in
            guard let row = try await db.raw(attempt).first() else { return nil }
            let leased = try row.decode(column: "retry_lease_owner", as: String?.self) == retry.leaseOwner
            let user = try await db.raw(Self.userByIdentifier(connection: connection, identifier: recipient)).first()
            let counted = ChallengeAttempt(
                challenge: try Self.challenge(from: row), consumed: false, user: try user.map(Self.user(from:)))
            return ConsumedChallengeAttempt(attempt: counted, leased: leased)
        }
    }

    public func settleChallengeExchange(id: String, answered: Bool, at: Date) async throws {
        let settle: SQLQueryString =
            answered
            ? "UPDATE challenges SET answered_at = \(bind: at.sqlValue) WHERE id = \(bind: id)"
            : "UPDATE challenges SET retry_lease_until = \(bind: at.sqlValue) WHERE id = \(bind: id) AND answered_at IS NULL"
        try await executor.write { db in try await db.raw(settle).run() }
    }
}
