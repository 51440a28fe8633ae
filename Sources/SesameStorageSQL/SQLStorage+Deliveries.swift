public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: DeliveryRepository {
    public func createChallenge(
        _ challenge: Challenge, delivery: QueuedDelivery, audit: AuditEvent?, gate: DeliveryGate?
    ) async throws -> Bool {
        // The status the insert stored tells the caller whether the gate let the message through.
        let inserted: SQLQueryString = "\(Self.insert(delivery, gate: gate)) RETURNING status"
        let status: String?
        if executor.flavor == .postgres {
            // PostgreSQL: one statement, atomic by itself, instead of a transaction of four: each
            // statement and the BEGIN and COMMIT around them are a round trip, five of the 25 or
            // so of an email-code login. The statements of a WITH all run (and see the table as
            // it was before the statement), whether or not the last one reads them.
            let audited: SQLQueryString = audit.map { ", audit AS (\(Self.insert([$0])))" } ?? ""
            let statement: SQLQueryString = """
                WITH retired AS (\(Self.retireOlder(than: challenge))), challenge AS (\(Self.insert(challenge))),
                delivery AS (\(inserted))\(audited) SELECT status FROM delivery
                """
            status = try await executor.write { db in try await db.raw(statement).first()?.string("status") }
        } else {
            status = try await executor.transaction { db in
                try await Self.insertChallenge(challenge, db)
                let row = try await db.raw(inserted).first()
                if let audit { try await Self.insertAudit(audit, db) }
                return try row?.string("status")
            }
        }
        return status != QueuedDelivery.Status.suppressed.rawValue
    }

    public func enqueueDeliveries(_ deliveries: [QueuedDelivery]) async throws {
        guard !deliveries.isEmpty else { return }
        try await executor.transaction { db in
            for delivery in deliveries { try await Self.insertDelivery(delivery, db) }
        }
    }

    public func claimDeliveries(owner: String, now: Date, leaseUntil: Date, limit: Int) async throws -> [QueuedDelivery] {
        // PostgreSQL: SKIP LOCKED lets workers of other instances claim other rows instead of
        // queueing behind this claim. SQLite has one writer, so the UPDATE is already the gate.
        // The due rows are chosen once, in a CTE: PostgreSQL may evaluate an `IN (SELECT …
        // LIMIT n)` subquery more than once inside an UPDATE and so claim more than `limit`.
        // The limit, an integer, is written into the SQL rather than bound: SQLite's planner
        // reads a bound LIMIT, so it prepared the statement again on every claim (3 % of the
        // server's CPU under email-code load); each batch size keeps its own statement instead.
        let postgres = executor.flavor == .postgres
        let skipLocked: SQLQueryString = postgres ? "FOR UPDATE SKIP LOCKED" : ""
        let returning: SQLQueryString = postgres ? "deliveries.*" : "*"
        return try await executor.write { db in
            try await db.raw(
                """
                WITH due AS (SELECT id FROM deliveries WHERE status = 'pending'
                  AND next_attempt_at <= \(bind: now.sqlValue)
                  AND (lease_until IS NULL OR lease_until <= \(bind: now.sqlValue))
                  ORDER BY next_attempt_at LIMIT \(unsafeRaw: String(limit)) \(skipLocked))
                UPDATE deliveries SET lease_owner = \(bind: owner), lease_until = \(bind: leaseUntil.sqlValue),
                attempts = attempts + 1, updated_at = \(bind: now.sqlValue)
                FROM due WHERE deliveries.id = due.id AND deliveries.status = 'pending'
                RETURNING \(returning)
                """
            ).all().map(Self.delivery(from:))
        }
    }

    public func renewDeliveryLeases(ids: [String], owner: String, until: Date) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        return try await executor.write { db in
            var renewed = 0
            for id in ids {
                renewed +=
                    try await db.raw(
                        """
                        UPDATE deliveries SET lease_until = \(bind: until.sqlValue)
                        WHERE id = \(bind: id) AND lease_owner = \(bind: owner) AND status = 'pending' RETURNING id
                        """
                    ).all().count
            }
            return renewed
        }
    }

    public func finishDelivery(id: String, owner: String, outcome: DeliveryOutcome, at: Date) async throws -> Bool {
        let change: SQLQueryString
        switch outcome {
        case .sent:
            // The payload held a live secret; once the provider has it, the outbox keeps none.
            change = "status = 'sent', sent_at = \(bind: at.sqlValue), payload = \(bind: Data()), last_error = NULL"
        case .retry(let next, let error):
            change = "next_attempt_at = \(bind: next.sqlValue), last_error = \(bind: String(error.prefix(1000)))"
        case .failed(let error):
            change = "status = 'failed', last_error = \(bind: String(error.prefix(1000)))"
        }
        return try await executor.write { db in
            try await db.raw(
                """
                UPDATE deliveries SET \(change), lease_owner = NULL, lease_until = NULL, updated_at = \(bind: at.sqlValue)
                WHERE id = \(bind: id) AND lease_owner = \(bind: owner) AND status = 'pending' RETURNING id
                """
            ).first() != nil
        }
    }

    public func deliveries(status: QueuedDelivery.Status?, recipient: String?, limit: Int) async throws
        -> [QueuedDelivery]
    {
        // Optional fragments rather than `$n IS NULL`: PostgreSQL cannot type an unbound NULL.
        var conditions: [SQLQueryString] = []
        if let status { conditions.append("status = \(bind: status.rawValue)") }
        if let recipient { conditions.append("recipient = \(bind: recipient)") }
        let filter: SQLQueryString = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try await executor.read { db in
            try await db.raw("SELECT * FROM deliveries \(filter) ORDER BY created_at DESC, id LIMIT \(bind: limit)")
                .all().map(Self.delivery(from:))
        }
    }

    public func delivery(id: String) async throws -> QueuedDelivery? {
        try await executor.read { db in
            try await db.raw("SELECT * FROM deliveries WHERE id = \(bind: id)").first().map(Self.delivery(from:))
        }
    }

    public func retryDelivery(id: String, at: Date, deadline: Date) async throws -> Bool {
        try await executor.write { db in
            try await db.raw(
                """
                UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = \(bind: at.sqlValue),
                deadline = \(bind: deadline.sqlValue), lease_owner = NULL, lease_until = NULL,
                updated_at = \(bind: at.sqlValue)
                WHERE id = \(bind: id) AND status IN ('pending', 'failed') AND payload <> \(bind: Data()) RETURNING id
                """
            ).first() != nil
        }
    }

    public func pendingDeliveries() async throws -> (count: Int, oldest: Date?) {
        try await executor.read { db in
            let row = try await db.raw(
                "SELECT COUNT(*) AS pending, MIN(created_at) AS oldest FROM deliveries WHERE status = 'pending'"
            ).first()
            return (try row?.int("pending") ?? 0, try row?.optionalDate("oldest"))
        }
    }

    static func insertDelivery(_ delivery: QueuedDelivery, _ db: any SQLDatabase) async throws {
        try await db.raw(insert(delivery)).run()
    }

    /// Inserts `delivery`; with `gate`, suppressed without its payload unless the gate lets it
    /// through for the stored account, which the statement reads itself. The SQL decides as
    /// ``DeliveryGate/delivers(to:)`` does: 1 - blocked for a stored user, else whether signup
    /// is on (booleans are 0/1 in both dialects).
    static func insert(_ delivery: QueuedDelivery, gate: DeliveryGate? = nil) -> SQLQueryString {
        var payload: SQLQueryString = "\(bind: Data(delivery.payload))"
        var status: SQLQueryString = "\(bind: delivery.status.rawValue)"
        var source: SQLQueryString = ""
        if let gate {
            payload = "CASE WHEN gate.go = 1 THEN \(payload) ELSE \(bind: Data()) END"
            status = "CASE WHEN gate.go = 1 THEN \(status) ELSE \(bind: QueuedDelivery.Status.suppressed.rawValue) END"
            source = """
                FROM (SELECT COALESCE((SELECT 1 - blocked FROM users WHERE connection = \(bind: gate.connection)
                AND identifier = \(bind: gate.identifier)), \(bind: gate.signupDisabled ? 0 : 1)) AS go) gate
                """
        }
        return """
            INSERT INTO deliveries (id, channel, recipient, payload, status, attempts, next_attempt_at, deadline,
            lease_owner, lease_until, last_error, created_at, updated_at, sent_at) SELECT \(bind: delivery.id),
            \(bind: delivery.channel), \(bind: delivery.recipient), \(payload), \(status), \(bind: delivery.attempts),
            \(bind: delivery.nextAttemptAt.sqlValue), \(bind: delivery.deadline.sqlValue), \(bind: delivery.leaseOwner),
            \(bind: delivery.leaseUntil?.sqlValue), \(bind: delivery.lastError), \(bind: delivery.createdAt.sqlValue),
            \(bind: delivery.updatedAt.sqlValue), \(bind: delivery.sentAt?.sqlValue) \(source)
            """
    }

    private static func delivery(from row: any SQLRow) throws -> QueuedDelivery {
        // A status this version does not know is shown as failed: nothing claims it.
        var delivery = QueuedDelivery(
            id: try row.string("id"), channel: try row.string("channel"), recipient: try row.string("recipient"),
            payload: try row.bytes("payload"), status: QueuedDelivery.Status(rawValue: try row.string("status")) ?? .failed,
            deadline: try row.date("deadline"), createdAt: try row.date("created_at"))
        delivery.attempts = try row.int("attempts")
        delivery.nextAttemptAt = try row.date("next_attempt_at")
        delivery.leaseOwner = try row.optionalString("lease_owner")
        delivery.leaseUntil = try row.optionalDate("lease_until")
        delivery.lastError = try row.optionalString("last_error")
        delivery.updatedAt = try row.date("updated_at")
        delivery.sentAt = try row.optionalDate("sent_at")
        return delivery
    }
}
