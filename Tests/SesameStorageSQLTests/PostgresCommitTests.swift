import Foundation
import SQLKit
import Testing

@testable import SesameStorageSQL

/// What a write reports is what the database keeps, at SERIALIZABLE too.
@Suite("PostgreSQL commits")
struct PostgresCommitTests {
    /// The failure: at SERIALIZABLE a lone statement runs, reports itself complete, and is then
    /// refused at its commit (40001), because a transaction that overlapped it committed
    /// first. postgres-nio had already returned the statement's result as a success, so the
    /// write was acknowledged and rolled back: two delivery workers claimed the same
    /// messages (a conformance check, once in CI), and a consumed code could be used again.
    /// Here the overlap is made on purpose: a transaction reads `a` and writes `b`, the write
    /// reads `b` and writes `a` (a write skew), and the transaction commits while the write
    /// is still running, which dooms the write at its commit.
    @Test("a write refused at its commit is retried, not acknowledged", .enabled(if: PostgresConformanceTests.url != nil))
    func commitRefusedAtSerializable() async throws {
        let url = PostgresConformanceTests.serializable(try #require(PostgresConformanceTests.url))
        let schema = PostgresConformanceTests.uniqueSchema("commit_")
        let writer = try await SQLStorage.postgres(url: url, maxConnections: 1, schema: schema, timeout: .seconds(60))
        let other = try await SQLStorage.postgres(url: url, maxConnections: 2, schema: schema, timeout: .seconds(60))
        do {
            try await other.executor.transaction { db in
                for table in ["a", "b"] {
                    try await db.raw("CREATE TABLE \(ident: table) (x BIGINT NOT NULL)").run()
                    try await db.raw("INSERT INTO \(ident: table) VALUES (0)").run()
                }
            }
            try await writeSkew(writer: writer, other: other, marker: schema)
            let kept = try await other.executor.read { db in try await db.raw("SELECT x FROM a").first()?.int("x") }
            #expect(kept == 1, "the write acknowledged is the one kept, made after the other transaction's")
        } catch {
            Issue.record(error)
        }
        try await writer.shutdown()
        try await other.shutdown()
    }

    /// Runs the write on `writer` while a transaction on `other` overlaps it. The transaction
    /// holds an advisory lock that the write's RETURNING waits for, so the write has read and
    /// written before the transaction commits, and ends only after it.
    private func writeSkew(writer: SQLStorage, other: SQLStorage, marker: String) async throws {
        let key = String(Int64.random(in: 1...Int64.max))
        let (opened, signal) = AsyncStream<Void>.makeStream()
        async let overlapping: Void = other.executor.transaction { db in
            try await db.raw("SELECT pg_advisory_xact_lock(\(unsafeRaw: key))").run()
            try await db.raw("SELECT x FROM a").run()
            try await db.raw("UPDATE b SET x = x + 1").run()
            signal.yield()
            try await waitUntilWaiting(other, marker: marker)
        }
        for await _ in opened { break }
        // The marker names this statement in pg_stat_activity, among other tests' statements.
        try await writer.executor.write { db in
            try await db.raw(
                """
                UPDATE a SET x = x + (SELECT x FROM b)
                RETURNING pg_advisory_xact_lock_shared(\(unsafeRaw: key)), \(unsafeRaw: "'\(marker)'") AS marker
                """
            ).run()
        }
        try await overlapping
    }

    private func waitUntilWaiting(_ storage: SQLStorage, marker: String) async throws {
        for _ in 0..<1200 {
            let waiting = try await storage.executor.read { db in
                try await db.raw(
                    """
                    SELECT count(*)::BIGINT AS n FROM pg_stat_activity
                    WHERE wait_event = 'advisory' AND query LIKE \(bind: "%" + marker + "%")
                    """
                ).first()?.int("n") ?? 0
            }
            if waiting > 0 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the write never waited for the lock")
    }
}
