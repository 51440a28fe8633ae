public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: KeyRepository {
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await executor.read { db in
            try await db.raw("SELECT * FROM signing_keys ORDER BY active_from DESC, created_at DESC, kid").all().map { row in
                SigningKeyRecord(
                    kid: try row.string("kid"),
                    privateKeyPEM: try self.opened(try row.string("private_key_pem"), SealedColumn.signingKey),
                    createdAt: try row.date("created_at"), activeFrom: try row.optionalDate("active_from"),
                    retiredAt: try row.optionalDate("retired_at"))
            }
        }
    }

    public func addSigningKey(_ key: SigningKeyRecord) async throws {
        let pem = try sealed(key.privateKeyPEM, SealedColumn.signingKey)
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO signing_keys (kid, private_key_pem, created_at, active_from, retired_at)
                VALUES (\(bind: key.kid), \(bind: pem), \(bind: key.createdAt.sqlValue),
                \(bind: key.activeFrom.sqlValue), \(bind: key.retiredAt?.sqlValue))
                """
            ).run()
        }
    }

    public func retireSigningKey(kid: String, at: Date) async throws -> Bool {
        try await executor.write { db in
            try await db.raw(
                """
                UPDATE signing_keys SET retired_at = \(bind: at.sqlValue)
                WHERE kid = \(bind: kid) AND retired_at IS NULL RETURNING kid
                """
            ).first() != nil
        }
    }

    /// The secrets of ``hmacKeys()``, in its order: one query and one unsealing path for both.
    public func hmacSecrets() async throws -> [[UInt8]] {
        try await hmacKeys().map(\.secret)
    }

    public func addHMACSecret(_ secret: [UInt8], at: Date) async throws {
        try await addHMACKey(HMACKeyRecord(secret: secret, createdAt: at))
    }
}

extension SQLStorage {
    public func hmacKeys() async throws -> [HMACKeyRecord] {
        try await executor.read { db in
            try await db.raw(
                "SELECT secret, created_at, active_from FROM hmac_secrets ORDER BY COALESCE(active_from, created_at) DESC, seq DESC"
            ).all().map { row in
                HMACKeyRecord(
                    secret: try self.opened(try row.bytes("secret"), SealedColumn.hmacSecret),
                    createdAt: try row.date("created_at"), activeFrom: try row.optionalDate("active_from"))
            }
        }
    }

    public func addHMACKey(_ key: HMACKeyRecord) async throws {
        let stored = Data(try sealed(key.secret, SealedColumn.hmacSecret))
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO hmac_secrets (secret, created_at, active_from)
                VALUES (\(bind: stored), \(bind: key.createdAt.sqlValue), \(bind: key.activeFrom.sqlValue))
                """
            ).run()
        }
    }
}

extension SQLStorage: RateLimitRepository {
    public func hit(key: String, windowStart: Date) async throws -> Int {
        try await executor.write { db in try await Self.hit(key: key, windowStart: windowStart, db) }
    }

    public func hit(_ counters: [RateLimitCounter]) async throws -> [Int] {
        guard executor.flavor == .postgres, counters.count > 1, Set(counters.map(\.key)).count == counters.count else {
            return try await executor.write { db in
                var counts: [Int] = []
                for counter in counters {
                    counts.append(try await Self.hit(key: counter.key, windowStart: counter.windowStart, db))
                    if counts[counts.count - 1] > counter.limit { break }
                }
                return counts
            }
        }
        // PostgreSQL: one statement, one round trip, for the whole series.
        let row = try await executor.write { db in try await db.raw(Self.chainedHits(counters)).first() }
        guard let row else { throw StorageError.unavailable("rate limit upsert returned no row") }
        var counts: [Int] = []
        for index in counters.indices {
            guard let count = try row.decode(column: "c\(index)", as: Int?.self) else { break }
            counts.append(count)
        }
        return counts
    }

    private static func hit(key: String, windowStart: Date, _ db: any SQLDatabase) async throws -> Int {
        let row = try await db.raw(
            "INSERT INTO rate_limits (key, window_start, count) VALUES (\(bind: key), \(bind: windowStart.sqlValue), 1) \(upsert)"
        ).first()
        guard let row else { throw StorageError.unavailable("rate limit upsert returned no row") }
        return try row.int("count")
    }

    /// A new window starts the count afresh; the same window adds one.
    private static let upsert: SQLQueryString = """
        ON CONFLICT (key) DO UPDATE SET
          count = CASE WHEN rate_limits.window_start = excluded.window_start THEN rate_limits.count + 1 ELSE 1 END,
          window_start = excluded.window_start
        RETURNING count
        """

    /// The hits of `counters` as one PostgreSQL statement: each counter's upsert is a step of a
    /// `WITH` that runs only when the step before stayed within its limit (a step that did not
    /// run returns no row, and so stops the ones after it). The keys must be distinct.
    static func chainedHits(_ counters: [RateLimitCounter]) -> SQLQueryString {
        var steps: [SQLQueryString] = []
        var counts: [SQLQueryString] = []
        for (index, counter) in counters.enumerated() {
            let name: SQLQueryString = "h\(unsafeRaw: String(index))"
            let gate: SQLQueryString =
                index == 0
                ? "" : "WHERE (SELECT count FROM h\(unsafeRaw: String(index - 1))) <= \(bind: counters[index - 1].limit)"
            steps.append(
                """
                \(name) AS (INSERT INTO rate_limits (key, window_start, count)
                  SELECT \(bind: counter.key), \(bind: counter.windowStart.sqlValue), 1 \(gate) \(upsert))
                """)
            counts.append("(SELECT count FROM \(name)) AS c\(unsafeRaw: String(index))")
        }
        return "WITH \(steps.joined(separator: ", ")) SELECT \(counts.joined(separator: ", "))"
    }

    public func counts(_ counters: [RateLimitCounter]) async throws -> [Int] {
        guard !counters.isEmpty else { return [] }
        // One read for every window of a budget: each read on PostgreSQL is a round trip.
        let keys = SQLList(counters.map { SQLBind($0.key) })
        let rows = try await executor.read { db in
            try await db.raw("SELECT key, window_start, count FROM rate_limits WHERE key IN (\(keys))").all()
        }
        var stored: [String: (windowStart: Date, count: Int)] = [:]
        for row in rows { stored[try row.string("key")] = (try row.date("window_start"), try row.int("count")) }
        return counters.map { counter in
            stored[counter.key].map { $0.windowStart == counter.windowStart ? $0.count : 0 } ?? 0
        }
    }
}

extension SQLStorage: EventRepository {
    public func addOutboxMessage(_ message: OutboxMessage, keep: Int) async throws {
        let insert: SQLQueryString = """
            INSERT INTO outbox (id, channel, recipient, code, link, subject, body, created_at) VALUES (\(bind: message.id),
            \(bind: message.channel), \(bind: message.recipient), \(bind: message.code), \(bind: message.link),
            \(bind: message.subject), \(bind: message.body), \(bind: message.createdAt.sqlValue))
            """
        guard executor.flavor == .postgres else {
            try await executor.transaction { db in
                try await db.raw(insert).run()
                // SQLite walks its row numbers for the range, and has one writer to queue on.
                try await db.raw("DELETE FROM outbox WHERE seq <= (SELECT MAX(seq) FROM outbox) - \(bind: keep)").run()
            }
            return
        }
        // PostgreSQL: one statement, atomic by itself, instead of BEGIN, two statements and
        // COMMIT: four round trips of an email-code login's twenty. The DELETE sees the table as
        // it was before the INSERT, so the new row's number bounds it.
        let prune = Self.pruneOutbox(newest: "(SELECT seq FROM added)", keep: keep)
        try await executor.write { db in try await db.raw("WITH added AS (\(insert) RETURNING seq) \(prune)").run() }
    }

    /// PostgreSQL: deletes the messages older than the `keep` newest, `newest` being the
    /// newest's number.
    ///
    /// The lower bound changes no result but lets PostgreSQL walk the key's index: the bounds
    /// are subqueries, unknown when the statement is planned, and with the upper bound alone
    /// it guessed a third of the rows and scanned the table on every message, a third of the
    /// database's time under email-code load. With `SKIP LOCKED` concurrent messages do not
    /// queue on the same oldest rows: each skips what another is deleting, which that one
    /// removes (or, if it rolls back, the next message does).
    static func pruneOutbox(newest: SQLQueryString, keep: Int) -> SQLQueryString {
        """
        DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox
          WHERE seq <= \(newest) - \(bind: keep) AND seq >= (SELECT MIN(seq) FROM outbox) FOR UPDATE SKIP LOCKED)
        """
    }

    public func recentOutboxMessages(limit: Int, recipient: String?) async throws -> [OutboxMessage] {
        try await executor.read { db in
            let filter: SQLQueryString = recipient.map { "WHERE recipient = \(bind: $0)" } ?? ""
            return try await db.raw("SELECT * FROM outbox \(filter) ORDER BY seq DESC LIMIT \(bind: limit)").all()
                .map(Self.outboxMessage(from:))
        }
    }

    public func outboxMessages(after cursor: Int64?, limit: Int) async throws -> (
        messages: [(number: Int64, message: OutboxMessage)], cursor: Int64
    ) {
        try await executor.read { db in
            guard let cursor else {
                let newest = try await db.raw("SELECT MAX(seq) AS seq FROM outbox").first()
                return ([], try newest?.decode(column: "seq", as: Int64?.self) ?? 0)
            }
            let rows = try await db.raw("SELECT * FROM outbox WHERE seq > \(bind: cursor) ORDER BY seq LIMIT \(bind: limit)")
                .all()
            let messages = try rows.map { (try $0.decode(column: "seq", as: Int64.self), try Self.outboxMessage(from: $0)) }
            return (messages, messages.last?.0 ?? cursor)
        }
    }

    private static func outboxMessage(from row: any SQLRow) throws -> OutboxMessage {
        OutboxMessage(
            id: try row.string("id"), channel: try row.string("channel"), recipient: try row.string("recipient"),
            code: try row.optionalString("code"), link: try row.optionalString("link"),
            subject: try row.optionalString("subject"), body: try row.string("body"), createdAt: try row.date("created_at"))
    }

    public func recordAudit(_ event: AuditEvent) async throws {
        try await executor.write { db in try await Self.insertAudit(event, db) }
    }

    /// Appends `event` inside the caller's write.
    static func insertAudit(_ event: AuditEvent, _ db: any SQLDatabase) async throws {
        try await db.raw(insert([event])).run()
    }

    /// One statement for all of `events` (a first login writes two): each statement is a round
    /// trip on PostgreSQL. The rows are numbered in the order given.
    static func insert(_ events: [AuditEvent]) -> SQLQueryString {
        let rows: [SQLQueryString] = events.map { event in
            """
            (\(bind: event.type), \(bind: event.userID), \(bind: event.clientID), \(bind: event.ip), \(bind: event.detail),
            \(bind: event.at.sqlValue))
            """
        }
        return "INSERT INTO audit_events (type, user_id, client_id, ip, detail, at) VALUES \(rows.joined(separator: ", "))"
    }

    public func recordAggregatedAudit(_ event: AuditEvent, aggregateKey: String) async throws -> Bool {
        // One upsert: the count it returns is 1 only for the statement that inserted the row.
        let row = try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO audit_events (type, user_id, client_id, ip, detail, at, count, aggregate_key)
                VALUES (\(bind: event.type), \(bind: event.userID), \(bind: event.clientID), \(bind: event.ip),
                \(bind: event.detail), \(bind: event.at.sqlValue), 1, \(bind: aggregateKey))
                ON CONFLICT (aggregate_key) DO UPDATE SET count = audit_events.count + 1
                RETURNING count
                """
            ).first()
        }
        guard let row else { throw StorageError.unavailable("audit upsert returned no row") }
        return try row.int("count") == 1
    }

    public func recentAuditEvents(limit: Int) async throws -> [AuditEvent] {
        try await auditEvents(AuditQuery(limit: limit))
    }

    public func auditEvents(_ query: AuditQuery) async throws -> [AuditEvent] {
        try await executor.read { db in
            let order: SQLQueryString = query.after == nil ? "DESC" : "ASC"
            return try await db.raw(
                """
                SELECT * FROM audit_events \(Self.filter(query)) ORDER BY seq \(order)
                LIMIT \(bind: query.limit) OFFSET \(bind: query.offset)
                """
            ).all().map(Self.auditEvent(from:))
        }
    }

    public func countAuditEvents(_ query: AuditQuery) async throws -> Int {
        try await executor.read { db in
            try await db.raw("SELECT COUNT(*) AS n FROM audit_events \(Self.filter(query))").first()?.int("n") ?? 0
        }
    }

    /// The `WHERE` clause of `query`, without its paging.
    private static func filter(_ query: AuditQuery) -> SQLQueryString {
        var conditions: [SQLQueryString] = []
        if let userID = query.userID { conditions.append("user_id = \(bind: userID)") }
        if let type = query.type { conditions.append("type = \(bind: type)") }
        if let types = query.types { conditions.append(types.isEmpty ? "1 = 0" : "type IN (\(binds: types))") }
        if let since = query.since { conditions.append("at >= \(bind: since.sqlValue)") }
        if let seq = query.seq { conditions.append("seq = \(bind: seq)") }
        if let after = query.after { conditions.append("seq > \(bind: after)") }
        return conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
    }

    public func deleteAuditEvents(before date: Date) async throws -> Int {
        try await executor.write { db in
            try await db.raw("DELETE FROM audit_events WHERE at < \(bind: date.sqlValue) RETURNING 1 AS removed").all().count
        }
    }

    private static func auditEvent(from row: any SQLRow) throws -> AuditEvent {
        AuditEvent(
            type: try row.string("type"), userID: try row.optionalString("user_id"),
            clientID: try row.optionalString("client_id"),
            ip: try row.optionalString("ip"), detail: try row.string("detail"), at: try row.date("at"),
            seq: Int64(try row.int("seq")), count: try row.int("count"))
    }

    public func withSetupLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await executor.withExclusiveLock(body)
    }
}
