public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: ChallengeRetryRepository {
    public func attemptConsumedChallenge(
        connection: String, recipient: String, at: Date, consumedSince: Date, retries: Int,
        within budget: [RateLimitCounter]
    ) async throws -> ChallengeAttempt? {
        // One statement counts the retry, so concurrent guesses at a consumed code share its
        // few remaining attempts; the MAX(seq) guard keeps a superseded code dead.
        let attempt: SQLQueryString = """
            UPDATE challenges SET attempts = attempts + 1
            WHERE seq = (SELECT MAX(seq) FROM challenges WHERE connection = \(bind: connection)
                         AND recipient = \(bind: recipient))
            AND consumed_at IS NOT NULL AND consumed_at >= \(bind: consumedSince.sqlValue)
            AND attempts < max_attempts + \(bind: retries) \(Self.notSpent(budget))
            RETURNING *
            """
        return try await executor.write { db in
            guard let row = try await db.raw(attempt).first() else { return nil }
            let user = try await db.raw(Self.userByIdentifier(connection: connection, identifier: recipient)).first()
            return ChallengeAttempt(
                challenge: try Self.challenge(from: row), consumed: false, user: try user.map(Self.user(from:)))
        }
    }
}
