import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import SQLKit
import SesameAPI
import SesameCore
import Synchronization
import Testing

@testable import SesameStorageSQL

/// Every statement a login runs must find its rows through an index, or its cost grows with
/// the tables: a million users would slow every login. The hot paths (email code, refresh,
/// device key, passkey, userinfo, and the delivery worker behind them) run in process while
/// their statements are recorded; each is then explained by the database. Plans, not
/// timings, are asserted.
@Suite("Query plans of the hot paths")
struct QueryPlanTests {
    /// Tables that hold configuration, a handful of rows each: scanning them is cheaper
    /// than any index, and they do not grow with users.
    static let smallTables: Set<String> = [
        "applications", "connections", "settings", "signing_keys", "hmac_secrets", "webhooks", "message_templates",
        "schema_migrations", "admin_tokens",
    ]

    @Test("SQLite: every hot statement uses an index")
    func sqlite() async throws {
        let recorder = StatementRecorder()
        let base = try await SQLiteExecutor.open(path: nil, logger: Logger(label: "test"))
        let storage = SQLStorage(executor: RecordingExecutor(base: base, recorder: recorder))
        try await storage.migrate()
        try await Self.runHotPaths(storage, recorder: recorder) {
            #expect(recorder.statements.count > 20, "the hot paths ran their statements")
            let tables = try await base.read { db in
                try await db.raw("SELECT name FROM sqlite_master WHERE type = 'table'").all().map { try $0.string("name") }
            }
            let large = Set(tables).subtracting(Self.smallTables)
            for (sql, binds) in recorder.statements {
                let plan = try await base.read { db in
                    try await Self.rows(db, "EXPLAIN QUERY PLAN " + sql, binds).map { try $0.string("detail") }
                }
                // A common table expression scanned by name is no table.
                let scans = plan.filter { Self.scannedTable(sqlite: $0).map(large.contains) ?? false }
                #expect(scans.isEmpty, "full scan in \(sql): \(plan)")
            }
        }
    }

    @Test(
        "PostgreSQL: every hot statement uses an index",
        .enabled(if: ProcessInfo.processInfo.environment["SESAME_TEST_POSTGRES_URL"]?.isEmpty == false))
    func postgres() async throws {
        let made = try await Self.postgresStorage(schemaPrefix: "plans_", maxConnections: 4)
        let recorder = StatementRecorder()
        let storage = SQLStorage(executor: RecordingExecutor(base: made.executor, recorder: recorder))
        try await Self.runHotPaths(storage, recorder: recorder) {
            #expect(recorder.statements.count > 20, "the hot paths ran their statements")
            for (sql, binds) in recorder.statements {
                // With sequential scans priced out, a plan that still has one has no index to use.
                let plan = try await made.executor.transaction { db in
                    try await db.raw("SET LOCAL enable_seqscan = off").run()
                    return try await Self.rows(db, "EXPLAIN " + sql, binds).map { try $0.string("QUERY PLAN") }
                }
                let scans = plan.filter { Self.scannedTable(postgres: $0).map { !Self.smallTables.contains($0) } ?? false }
                #expect(scans.isEmpty, "sequential scan in \(sql): \(plan)")
            }
        }
    }

    /// The plans above are made with sequential scans priced out, which hides a statement
    /// whose bound is a subquery (unknown when planned): the console outbox's prune, run on
    /// every message, scanned the table that way (a third of PostgreSQL's time under
    /// email-code load). Here the planner chooses freely, on a table of a few hundred
    /// messages of a few kilobytes, as shipped templates make them.
    @Test(
        "PostgreSQL: the outbox prune walks the index",
        .enabled(if: ProcessInfo.processInfo.environment["SESAME_TEST_POSTGRES_URL"]?.isEmpty == false))
    func outboxPruneWalksIndex() async throws {
        let storage = try await Self.postgresStorage(schemaPrefix: "prune_", maxConnections: 2)
        for number in 0..<300 {
            try await storage.addOutboxMessage(
                OutboxMessage(
                    id: "m\(number)", channel: "email", recipient: "ana@example.com", code: "123456", link: nil,
                    subject: "Your code", body: String(repeating: "<p>text</p> ", count: 200), createdAt: Date()),
                keep: 250)
        }
        #expect(try await storage.recentOutboxMessages(limit: 1000, recipient: nil).count == 250)
        let newest: SQLQueryString = "(SELECT MAX(seq) FROM outbox)"
        let plan = { (statement: SQLQueryString) in
            try await storage.executor.transaction { db in
                try await db.raw("ANALYZE outbox").run()
                return try await db.raw("EXPLAIN \(statement)").all().map { try $0.string("QUERY PLAN") }
            }
        }
        let pruned = try await plan(SQLStorage.pruneOutbox(newest: newest, keep: 250))
        #expect(pruned.compactMap(Self.scannedTable(postgres:)).isEmpty, "\(pruned)")
        // The form before, bounded from above only: the check sees its scan.
        let before = try await plan("DELETE FROM outbox WHERE seq <= \(newest) - \(bind: 250)")
        #expect(before.compactMap(Self.scannedTable(postgres:)) == ["outbox"], "\(before)")
        try await storage.shutdown()
    }

    /// Storage on the test PostgreSQL server, in a schema of its own.
    static func postgresStorage(schemaPrefix: String, maxConnections: Int) async throws -> SQLStorage {
        let url = try #require(ProcessInfo.processInfo.environment["SESAME_TEST_POSTGRES_URL"])
        let schema = schemaPrefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return try await SQLStorage.postgres(url: url, maxConnections: maxConnections, schema: schema, timeout: .seconds(60))
    }

    /// The check itself must catch a statement without an index.
    @Test("a lookup on a column without an index is caught as a scan")
    func catchesScans() async throws {
        let base = try await SQLiteExecutor.open(path: nil, logger: Logger(label: "test"))
        let plan = try await base.write { db in
            try await db.raw("CREATE TABLE people (id TEXT PRIMARY KEY, name TEXT)").run()
            return try await Self.rows(db, "EXPLAIN QUERY PLAN SELECT * FROM people WHERE name = ?", ["ana"])
                .map { try $0.string("detail") }
        }
        #expect(plan.compactMap(Self.scannedTable(sqlite:)) == ["people"], "\(plan)")
        let byKey = try await base.read { db in
            try await Self.rows(db, "EXPLAIN QUERY PLAN SELECT * FROM people WHERE id = ?", ["1"]).map { try $0.string("detail") }
        }
        #expect(byKey.compactMap(Self.scannedTable(sqlite:)).isEmpty, "\(byKey)")
        #expect(Self.scannedTable(postgres: "  ->  Seq Scan on users  (cost=0.00..1.01 rows=1 width=32)") == "users")
        try await base.shutdown()
    }

    /// Runs an email-code login with a refresh, userinfo, a device-key login and a passkey
    /// login on `storage`, recording from the first request (not setup), then `check` before
    /// the harness closes the storage.
    static func runHotPaths(
        _ storage: SQLStorage, recorder: StatementRecorder, check: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await Harness.run(storage: storage) { h in
            recorder.start()
            let tokens = try await h.login(email: "ana@example.com")
            let refreshed = try await h.post(
                "/oauth/token",
                ["grant_type": "refresh_token", "client_id": h.clientID, "refresh_token": tokens.refreshToken])
            #expect(refreshed.status == .ok, "\(refreshed.text)")
            let info = try await h.get("/userinfo", headers: Harness.bearer(tokens.accessToken))
            #expect(info.status == .ok)
            let device = try await h.enroll("bo@example.com")
            let deviceLogin = try await h.deviceLogin(device.assertion(h))
            #expect(deviceLogin.status == .ok)
            let passkey = PasskeyClient(h)
            _ = try await passkey.signUp(email: "cy@example.com")
            let passkeyLogin = try await passkey.signIn(signCount: 1)
            #expect(passkeyLogin.status == .ok)
            try await check()
        }
    }

    /// The rows of `sql` run with `binds` as they were recorded.
    static func rows(_ db: any SQLDatabase, _ sql: String, _ binds: [any Encodable & Sendable]) async throws -> [any SQLRow] {
        let rows = Mutex<[any SQLRow]>([])
        try await db.execute(sql: RecordedStatement(sql: sql, binds: binds)) { row in rows.withLock { $0.append(row) } }
        return rows.withLock { $0 }
    }

    /// The table of an SQLite `SCAN table` step (not `SEARCH`, which uses an index).
    static func scannedTable(sqlite detail: String) -> String? {
        guard detail.hasPrefix("SCAN ") else { return nil }
        let name = detail.dropFirst(5).prefix { $0 != " " }
        // A covering index scan reads the index, not the table; a CTE or subquery is no table.
        if detail.contains("USING COVERING INDEX") || detail.contains("USING INDEX") { return nil }
        return String(name)
    }

    /// The table of a PostgreSQL `Seq Scan on table` node.
    static func scannedTable(postgres line: String) -> String? {
        guard let range = line.range(of: "Seq Scan on ") else { return nil }
        return String(line[range.upperBound...].prefix { $0 != " " })
    }
}

/// SQL already serialized, with its binds.
struct RecordedStatement: SQLExpression {
    let sql: String
    let binds: [any Encodable & Sendable]

    func serialize(to serializer: inout SQLSerializer) {
        serializer.write(sql)
        serializer.binds += binds
    }
}

/// The statements run, each SQL text once with its first binds.
final class StatementRecorder: Sendable {
    private let recorded = Mutex<[(String, [any Encodable & Sendable])]>([])
    private let active = Atomic<Bool>(false)

    /// Records from now on: migrations and setup are not hot paths.
    func start() { active.store(true, ordering: .sequentiallyConsistent) }

    func record(_ sql: String, _ binds: [any Encodable & Sendable]) {
        guard active.load(ordering: .sequentiallyConsistent) else { return }
        recorded.withLock { list in
            if !list.contains(where: { $0.0 == sql }) { list.append((sql, binds)) }
        }
    }

    /// The statements that read or change rows (not transaction control or settings).
    var statements: [(String, [any Encodable & Sendable])] {
        recorded.withLock { $0 }.filter { sql, _ in
            let verb = sql.prefix { $0 != " " }.uppercased()
            return ["SELECT", "UPDATE", "DELETE", "INSERT", "WITH"].contains(verb)
        }
    }
}

/// An executor that records what its bodies run.
struct RecordingExecutor: SQLExecutor {
    let base: any SQLExecutor
    let recorder: StatementRecorder
    var flavor: SQLFlavor { base.flavor }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await base.read { [recorder] in try await body(RecordingDatabase(base: $0, recorder: recorder)) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await base.write { [recorder] in try await body(RecordingDatabase(base: $0, recorder: recorder)) }
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await base.transaction { [recorder] in try await body(RecordingDatabase(base: $0, recorder: recorder)) }
    }

    func withExclusiveLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await base.withExclusiveLock(body)
    }

    func shutdown() async throws { try await base.shutdown() }
}

/// A database that records each statement's SQL and binds, then runs it.
struct RecordingDatabase: SQLDatabase {
    let base: any SQLDatabase
    let recorder: StatementRecorder
    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var dialect: any SQLDialect { base.dialect }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        let (sql, binds) = serialize(query)
        recorder.record(sql, binds)
        return base.execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let (sql, binds) = serialize(query)
        recorder.record(sql, binds)
        try await base.execute(sql: query, onRow)
    }
}
