import Foundation
import SQLKit
import SesameCore
import SesameStorageConformance
import Testing

@testable import SesameStorageSQL

/// The same conformance suite on PostgreSQL, when `SESAME_TEST_POSTGRES_URL` names a server
/// (`scripts/test` starts one on 127.0.0.1). Each check works in a schema of its own.
@Suite("PostgreSQL storage conformance")
struct PostgresConformanceTests {
    static let url = ProcessInfo.processInfo.environment["SESAME_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// A schema name no other test uses, so tests on one server stay apart.
    static func uniqueSchema(_ prefix: String) -> String {
        prefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    @Test("the suite runs on PostgreSQL, or says why it does not")
    func availability() {
        if Self.url == nil {
            print("NOTICE: SESAME_TEST_POSTGRES_URL is not set: the PostgreSQL conformance run is skipped")
        }
    }

    @Test("PostgreSQL", .enabled(if: url != nil), arguments: StorageConformance.checks)
    func postgres(_ check: ConformanceCheck) async throws {
        try await run(check, url: try #require(Self.url))
    }

    /// SERIALIZABLE is what CockroachDB always runs and what some operators configure: racing
    /// single-use updates then fail with serialization errors instead of waiting on a row
    /// lock, and must still end as one success and clean refusals (no 503s).
    @Test("PostgreSQL at SERIALIZABLE isolation", .enabled(if: url != nil), arguments: StorageConformance.checks)
    func serializable(_ check: ConformanceCheck) async throws {
        try await run(check, url: Self.serializable(try #require(Self.url)))
    }

    /// `url` with every connection's transactions at SERIALIZABLE.
    static func serializable(_ url: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "options=-c%20default_transaction_isolation%3Dserializable"
    }

    /// `database_prepared_statements = false`, for poolers that cannot keep prepared statements.
    @Test("PostgreSQL, every statement unprepared", .enabled(if: url != nil), arguments: StorageConformance.checks)
    func unprepared(_ check: ConformanceCheck) async throws {
        try await run(check, url: try #require(Self.url), preparedStatements: false)
    }

    /// The schemas the checks take turns on, at most this many checks at once. Migrating a
    /// schema takes the migrations' advisory lock, which every schema on the server shares:
    /// a fresh schema for each of the 318 checks queued on it for most of the suite's time.
    private static let schemas = SchemaPool(prefix: "conformance_", size: 12)

    private func run(_ check: ConformanceCheck, url: String, preparedStatements: Bool = true) async throws {
        try await Self.schemas.run { schema in
            // A generous deadline: these checks test semantics, and many run at once against one
            // server. Two connections each keep the checks under the test server's connections,
            // so none waits on refusals ("too many clients") while the machine is busy.
            let store = try await SQLStorage.postgres(
                url: url, maxConnections: 2, schema: schema, timeout: .seconds(60), preparedStatements: preparedStatements)
            do {
                try await check.run(store, TestClock())
                try await SchemaPool.empty(store, schema: schema)
            } catch {
                try? await store.shutdown()
                throw error
            }
            try await store.shutdown()
        }
    }

    @Test("libpq's options parameter sets server settings; anything else in it is refused")
    func urlOptions() async throws {
        #expect(
            try PostgresURL.serverSettings("-c statement_timeout=5000 -cwork_mem=4MB --lock-timeout=1s").map { "\($0)=\($1)" }
                == ["statement_timeout=5000", "work_mem=4MB", "lock_timeout=1s"])
        #expect(throws: StorageError.self) { try PostgresURL.serverSettings("statement_timeout=5000") }
        #expect(throws: StorageError.self) { try PostgresURL.serverSettings("-c novalue") }
    }

    /// The failure: during a rolling upgrade another instance adds a column, and every
    /// statement this instance prepared with `SELECT *` before it fails from then on with
    /// "cached plan must not change result type", on every connection that holds it.
    @Test("a statement prepared before another instance adds a column still runs after it", .enabled(if: url != nil))
    func preparedAcrossSchemaChange() async throws {
        let url = try #require(Self.url)
        let schema = Self.uniqueSchema("prepared_")
        // One connection, so the statement read after the change is the one prepared before it.
        let store = try await SQLStorage.postgres(url: url, maxConnections: 1, schema: schema, timeout: .seconds(60))
        let other = try await SQLStorage.postgres(url: url, maxConnections: 1, schema: schema, timeout: .seconds(60))
        let columns: @Sendable () async throws -> [String] = {
            try await store.executor.read { db in
                try await db.raw("SELECT * FROM settings WHERE key = \(bind: "issuer")").first()?.allColumns ?? []
            }
        }
        do {
            try await other.executor.write { db in
                try await db.raw("INSERT INTO settings (key, value, updated_at) VALUES ('issuer', 'x', 0)").run()
            }
            #expect(try await columns().sorted() == ["key", "updated_at", "value"])
            try await other.executor.write { db in try await db.raw("ALTER TABLE settings ADD COLUMN note TEXT").run() }
            for _ in 0..<3 { #expect(try await columns().sorted() == ["key", "note", "updated_at", "value"]) }
        } catch {
            Issue.record(error)
        }
        try await store.shutdown()
        try await other.shutdown()
    }

    @Test("instances that start together migrate once", .enabled(if: url != nil))
    func concurrentMigrations() async throws {
        let url = try #require(Self.url)
        let schema = Self.uniqueSchema("migrate_")
        let stores = try await withThrowingTaskGroup(of: SQLStorage.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await SQLStorage.postgres(url: url, maxConnections: 2, schema: schema, timeout: .seconds(60))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stores.count == 4)
        for store in stores { try await store.shutdown() }
    }
}

/// Migrated schemas for checks that each need an empty one: at most `size` exist, a check
/// waits for a free one, and a schema comes back emptied (``empty(_:schema:)``), as a freshly
/// migrated schema is. A check that fails gives its schema up, so no later check sees its rows.
actor SchemaPool {
    private let prefix: String
    private let size: Int
    private var created = 0
    private var free: [String] = []
    private var waiting: [CheckedContinuation<String, Never>] = []

    init(prefix: String, size: Int) {
        self.prefix = prefix
        self.size = size
    }

    /// Runs `body` with a schema of its own; the schema is reused only when `body` returns.
    nonisolated func run(_ body: @Sendable (String) async throws -> Void) async throws {
        let schema = await take()
        do {
            try await body(schema)
        } catch {
            await giveUp()
            throw error
        }
        await give(schema)
    }

    /// Empties every table but the migrations' own record. Migrations only create and alter
    /// tables, so this leaves the schema as migrating it afresh would.
    static func empty(_ store: SQLStorage, schema: String) async throws {
        try await store.executor.write { db in
            let tables = try await db.raw(
                "SELECT tablename FROM pg_tables WHERE schemaname = \(bind: schema) AND tablename <> 'schema_migrations'"
            ).all().map { try $0.decode(column: "tablename", as: String.self) }
            guard !tables.isEmpty else { return }
            let names = tables.map { "\"\(schema)\".\"\($0)\"" }.joined(separator: ", ")
            let statement = "TRUNCATE " + names + " RESTART IDENTITY CASCADE"
            try await db.raw(SQLQueryString(statement)).run()
        }
    }

    private func take() async -> String {
        if let schema = free.popLast() { return schema }
        if created < size {
            created += 1
            return PostgresConformanceTests.uniqueSchema(prefix)
        }
        return await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands `schema` to the first check waiting, or keeps it.
    private func give(_ schema: String) {
        if waiting.isEmpty { free.append(schema) } else { waiting.removeFirst().resume(returning: schema) }
    }

    /// A failed check's schema is left as it is; a waiting check gets a new one.
    private func giveUp() {
        if waiting.isEmpty {
            created -= 1
        } else {
            waiting.removeFirst().resume(returning: PostgresConformanceTests.uniqueSchema(prefix))
        }
    }
}
