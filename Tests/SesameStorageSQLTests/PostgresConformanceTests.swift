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

    /// At most this many checks at once. Each sets up a schema of its own, and every setup's
    /// migrations take turns on one advisory lock; two hundred setups at once (three runs of
    /// the suite) queued on it for longer than the checks' 60 s deadline on a slow day.
    private static let gate = CheckGate(limit: 12)

    private func run(_ check: ConformanceCheck, url: String, preparedStatements: Bool = true) async throws {
        try await Self.gate.run { try await runAlone(check, url: url, preparedStatements: preparedStatements) }
    }

    private func runAlone(_ check: ConformanceCheck, url: String, preparedStatements: Bool) async throws {
        let schema = Self.uniqueSchema("conformance_")
        // A generous deadline: these checks test semantics, and many run at once against one server.
        // Two connections each keep 120 parallel checks under the test server's 300 connections,
        // so none waits on refusals ("too many clients") while the machine is busy.
        let store = try await SQLStorage.postgres(
            url: url, maxConnections: 2, schema: schema, timeout: .seconds(60), preparedStatements: preparedStatements)
        do {
            try await check.run(store, TestClock())
        } catch {
            try? await store.shutdown()
            throw error
        }
        try await store.shutdown()
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

/// Lets `limit` callers in at once; the others wait their turn, first come first served.
actor CheckGate {
    private let limit: Int
    private var inside = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = limit }

    /// Runs `body` once a place is free, and frees it after, whether `body` throws or not.
    nonisolated func run(_ body: @Sendable () async throws -> Void) async throws {
        await enter()
        do {
            try await body()
        } catch {
            await leave()
            throw error
        }
        await leave()
    }

    private func enter() async {
        if inside < limit {
            inside += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the place to the first caller waiting, or frees it.
    private func leave() {
        if waiting.isEmpty { inside -= 1 } else { waiting.removeFirst().resume() }
    }
}
