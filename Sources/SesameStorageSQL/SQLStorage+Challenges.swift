public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: ChallengeRepository {
    public func createChallenge(_ challenge: Challenge) async throws {
        try await executor.transaction { db in try await Self.insertChallenge(challenge, db) }
    }

    /// Stores `challenge` as its recipient's newest, inside the caller's transaction.
    static func insertChallenge(_ challenge: Challenge, _ db: any SQLDatabase) async throws {
        try await db.raw(retireOlder(than: challenge)).run()
        try await db.raw(insert(challenge)).run()
    }

    /// Only the newest challenge of a recipient is live (Auth0): this retires the others.
    static func retireOlder(than challenge: Challenge) -> SQLQueryString {
        """
        UPDATE challenges SET consumed_at = \(bind: challenge.createdAt.sqlValue)
        WHERE connection = \(bind: challenge.connection) AND recipient = \(bind: challenge.recipient)
        AND consumed_at IS NULL
        """
    }

    static func insert(_ challenge: Challenge) -> SQLQueryString {
        """
        INSERT INTO challenges (id, connection, recipient, client_id, kind, secret_hash, attempts, max_attempts,
        created_at, expires_at, consumed_at) VALUES (\(bind: challenge.id), \(bind: challenge.connection),
        \(bind: challenge.recipient), \(bind: challenge.clientID), \(bind: challenge.kind.rawValue),
        \(bind: Data(challenge.secretHash)), \(bind: challenge.attempts), \(bind: challenge.maxAttempts),
        \(bind: challenge.createdAt.sqlValue), \(bind: challenge.expiresAt.sqlValue),
        \(bind: challenge.consumedAt?.sqlValue))
        """
    }

    public func attemptChallenge(
        connection: String, recipient: String, at: Date, within budget: [RateLimitCounter],
        consumeIf acceptance: ChallengeAcceptance?
    ) async throws -> ChallengeAttempt? {
        // One statement counts the attempt and, when the stored hash is among the presented
        // secret's, consumes: of concurrent callers the row lock lets one through, and the others
        // find the challenge consumed (and count nothing, as no live challenge is left).
        let attempt = Self.countAttempt(
            connection: connection, recipient: recipient, at: at, notSpent: Self.notSpent(budget),
            consumed: Self.consumption(acceptance, at: at))
        guard executor.flavor == .postgres else {
            // SQLite has no UPDATE in a WITH: the user is read after it, on the writer, in the same job.
            return try await executor.write { db in
                guard let row = try await db.raw("\(attempt) RETURNING *").first() else { return nil }
                let challenge = try Self.challenge(from: row)
                guard challenge.consumedAt != nil else { return ChallengeAttempt(challenge: challenge, consumed: false) }
                let user = try await db.raw(Self.userByIdentifier(connection: connection, identifier: recipient)).first()
                return ChallengeAttempt(challenge: challenge, consumed: true, user: try user.map(Self.user(from:)))
            }
        }
        // One round trip: the consumed challenge's user comes back beside it.
        let row = try await executor.write { db in
            try await db.raw(
                """
                WITH attempt AS (\(attempt) RETURNING *)
                SELECT attempt.*, \(unsafeRaw: Self.attemptUserColumns) FROM attempt
                LEFT JOIN users u ON attempt.consumed_at IS NOT NULL
                AND u.connection = attempt.connection AND u.identifier = attempt.recipient
                """
            ).first()
        }
        return try row.map { row in
            let challenge = try Self.challenge(from: row)
            let user = try row.decodeNil(column: "user_id") ? nil : Self.user(from: row, prefix: "user_")
            return ChallengeAttempt(challenge: challenge, consumed: challenge.consumedAt != nil, user: user)
        }
    }

    private static let attemptUserColumns = userColumns(of: "u", prefix: "user_")

    /// What an attempt sets: `consumed_at` to `at` when the row meets `acceptance` (else NULL)
    /// and, for a code exchange, the consumer's lease on the code
    /// (``ChallengeAcceptance/exchangeLeaseUntil``) in the same statement.
    private static func consumption(_ acceptance: ChallengeAcceptance?, at: Date) -> SQLQueryString {
        guard let acceptance else { return "NULL" }
        let hashes = SQLList(acceptance.secretHashes.map { SQLBind(Data($0)) })
        var conditions: SQLQueryString = "secret_hash IN (\(hashes))"
        if let clientID = acceptance.clientID { conditions = "\(conditions) AND client_id = \(bind: clientID)" }
        if let id = acceptance.challengeID { conditions = "\(conditions) AND id = \(bind: id)" }
        let consumed: SQLQueryString = "CASE WHEN \(conditions) THEN \(bind: at.sqlValue) END"
        guard let lease = acceptance.exchangeLeaseUntil else { return consumed }
        return "\(consumed), retry_lease_until = CASE WHEN \(conditions) THEN \(bind: lease.sqlValue) END"
    }

    /// The condition that no counter of `budget` has reached its limit in its window (none
    /// when there is no budget).
    static func notSpent(_ budget: [RateLimitCounter]) -> SQLQueryString {
        guard !budget.isEmpty else { return "" }
        let reached: [SQLQueryString] = budget.map {
            "(key = \(bind: $0.key) AND window_start = \(bind: $0.windowStart.sqlValue) AND count >= \(bind: $0.limit))"
        }
        return "AND NOT EXISTS (SELECT 1 FROM rate_limits WHERE \(reached.joined(separator: " OR ")))"
    }

    /// Counts one attempt against the recipient's newest live challenge when `notSpent`
    /// holds and sets its consumption to `consumed` (NULL: not consumed); the caller adds
    /// what it returns.
    private static func countAttempt(
        connection: String, recipient: String, at: Date, notSpent: SQLQueryString, consumed: SQLQueryString
    ) -> SQLQueryString {
        // The MAX(seq) guard keeps older challenges dead even if two starts raced.
        """
        UPDATE challenges SET attempts = attempts + 1, consumed_at = \(consumed)
        WHERE seq = (SELECT MAX(seq) FROM challenges WHERE connection = \(bind: connection)
                     AND recipient = \(bind: recipient))
        AND consumed_at IS NULL AND expires_at > \(bind: at.sqlValue) AND attempts < max_attempts \(notSpent)
        """
    }

    public func newestChallenge(connection: String, recipient: String) async throws -> Challenge? {
        try await executor.read { db in
            try await db.raw(
                """
                SELECT * FROM challenges WHERE connection = \(bind: connection) AND recipient = \(bind: recipient)
                ORDER BY seq DESC LIMIT 1
                """
            ).first().map(Self.challenge(from:))
        }
    }

    public func isSuperseded(connection: String, recipient: String, secretHashes: [[UInt8]]) async throws -> Bool {
        guard !secretHashes.isEmpty else { return false }
        let hashes = SQLList(secretHashes.map { SQLBind(Data($0)) })
        // A retired challenge's consumption is its successor's creation (``retireOlder(than:)``).
        return try await executor.read { db in
            try await db.raw(
                """
                SELECT c.id FROM challenges c WHERE c.connection = \(bind: connection) AND c.recipient = \(bind: recipient)
                AND c.secret_hash IN (\(hashes)) AND EXISTS (SELECT 1 FROM challenges n
                  WHERE n.connection = c.connection AND n.recipient = c.recipient AND n.seq > c.seq
                  AND n.created_at = c.consumed_at)
                LIMIT 1
                """
            ).first() != nil
        }
    }

    public func refundAttempt(challengeID: String) async throws {
        try await executor.write { db in
            try await db.raw("UPDATE challenges SET attempts = attempts - 1 WHERE id = \(bind: challengeID) AND attempts > 0")
                .run()
        }
    }

    public func consumeChallenge(id: String, at: Date) async throws -> Bool {
        try await executor.write { db in
            try await db.raw(
                """
                UPDATE challenges SET consumed_at = \(bind: at.sqlValue)
                WHERE id = \(bind: id) AND consumed_at IS NULL AND expires_at > \(bind: at.sqlValue) RETURNING id
                """
            ).first() != nil
        }
    }

    public func deleteExpiredChallenges(before date: Date) async throws -> Int {
        try await executor.write { db in
            try await db.raw("DELETE FROM challenges WHERE expires_at < \(bind: date.sqlValue) RETURNING id").all().count
        }
    }

    static func challenge(from row: any SQLRow) throws -> Challenge {
        Challenge(
            id: try row.string("id"), connection: try row.string("connection"), recipient: try row.string("recipient"),
            clientID: try row.string("client_id"), kind: ChallengeKind(rawValue: try row.string("kind")) ?? .code,
            secretHash: try row.bytes("secret_hash"), attempts: try row.int("attempts"),
            maxAttempts: try row.int("max_attempts"), createdAt: try row.date("created_at"),
            expiresAt: try row.date("expires_at"), consumedAt: try row.optionalDate("consumed_at"))
    }
}
