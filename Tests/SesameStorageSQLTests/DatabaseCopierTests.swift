import Foundation
import SQLKit
import SesameCore
import Testing

@testable import SesameStorageSQL

/// Copying an SQLite deployment into PostgreSQL (`sesame admin migrate-to-postgres`), when
/// `SESAME_TEST_POSTGRES_URL` names a server. Each test copies into a schema of its own.
@Suite("Copying SQLite into PostgreSQL")
struct DatabaseCopierTests {
    static let url = PostgresConformanceTests.url

    @Test("the copy runs on PostgreSQL, or says why it does not")
    func availability() {
        if Self.url == nil {
            print("NOTICE: SESAME_TEST_POSTGRES_URL is not set: copying SQLite into PostgreSQL is not tested")
        }
    }

    @Test("every record reads back the same and stays usable", .enabled(if: url != nil))
    func roundTrip() async throws {
        let fixture = DeploymentFixture()
        try await withStores { source, target in
            try await fixture.fill(source)
            // Two rows per statement, so tables with more are copied in several pages.
            let tables = try await DatabaseCopier(from: source, to: target, batchSize: 2).copy()
            #expect(tables.first { $0.name == "users" }?.rows == 2)
            #expect(tables.first { $0.name == "outbox" }?.rows == 3)
            #expect(!tables.contains { $0.name == "schema_migrations" })
            let empty = tables.filter { $0.rows == 0 }.map(\.name)
            #expect(empty.isEmpty, "the fixture should put a row in every table, also in \(empty)")
            // The secrets come across sealed, and open under the same master key.
            try await DeploymentFixture.unseal(target)
            try await fixture.expectSame(target, as: source)
        }
    }

    @Test("rows added after the copy get fresh serial numbers", .enabled(if: url != nil))
    func sequences() async throws {
        let fixture = DeploymentFixture()
        let now = DeploymentFixture.now
        try await withStores { source, target in
            try await fixture.fill(source)
            _ = try await DatabaseCopier(from: source, to: target).copy()
            try await DeploymentFixture.unseal(target)
            // Each of these would collide with a copied `seq` if the sequences still began at 1.
            try await target.addHMACSecret([9], at: now)
            #expect(try await target.hmacSecrets() == [[9], [2, 2], [0, 1, 0, 255]])
            let message = OutboxMessage(
                id: "msg-new", channel: "sms", recipient: "+14155550123", code: "1", link: nil, subject: nil, body: "b",
                createdAt: now)
            try await target.addOutboxMessage(message, keep: 100)
            #expect(try await target.recentOutboxMessages(limit: 1, recipient: nil) == [message])
            var newer = fixture.challenge
            newer.id = "ch-2"
            try await target.createChallenge(newer)
            #expect(try await target.registerAttempt(connection: "email", recipient: "ana@example.com", at: now)?.id == "ch-2")
        }
    }

    @Test("a target that holds data is refused and left as it was", .enabled(if: url != nil))
    func nonEmptyTarget() async throws {
        try await withStores { source, target in
            try await DeploymentFixture().fill(source)
            try await target.addSigningKey(SigningKeyRecord(kid: "other", privateKeyPEM: "pem", createdAt: DeploymentFixture.now))
            await #expect(throws: DatabaseCopyError.targetNotEmpty()) {
                try await DatabaseCopier(from: source, to: target).copy()
            }
            #expect(try await target.signingKeys().map(\.kid) == ["other"])
            #expect(try await rowCounts(target, tablesOf: source).filter { $0.value > 0 }.keys.sorted() == ["signing_keys"])
        }
    }

    @Test("a copy that fails part-way leaves the target empty, and can run again", .enabled(if: url != nil))
    func rollback() async throws {
        try await withStores { source, target in
            // `users` is copied last, after every other table; PostgreSQL's BIGINT cannot take this.
            try await expectCopyFails(
                with: .unsupported(), after: "UPDATE users SET logins_count = 'many'", from: source, to: target)
            try await source.executor.write { try await $0.raw("UPDATE users SET logins_count = 1").run() }
            _ = try await DatabaseCopier(from: source, to: target).copy()
            #expect(try await rowCounts(target, tablesOf: source) == rowCounts(source, tablesOf: source))
        }
    }

    @Test("columns and tables added by later migrations carry over", .enabled(if: url != nil))
    func schemaGrowth() async throws {
        try await withStores { source, target in
            try await DeploymentFixture().fill(source)
            try await source.executor.write { db in
                try await db.raw("ALTER TABLE signing_keys ADD COLUMN added_later INTEGER").run()
                try await db.raw("UPDATE signing_keys SET added_later = 42").run()
                try await db.raw("CREATE TABLE later (id TEXT PRIMARY KEY, blob BLOB)").run()
                try await db.raw("INSERT INTO later VALUES ('a', x'00ff00')").run()
            }
            try await target.executor.write { db in
                try await db.raw("ALTER TABLE signing_keys ADD COLUMN added_later BIGINT").run()
                try await db.raw("CREATE TABLE later (id TEXT PRIMARY KEY, blob BYTEA)").run()
            }
            _ = try await DatabaseCopier(from: source, to: target).copy()
            let row = try await target.executor.read { db in
                try await db.raw("SELECT added_later, (SELECT blob FROM later) AS blob FROM signing_keys").first()
            }
            #expect(try row?.int("added_later") == 42)
            #expect(try row?.bytes("blob") == [0, 255, 0])
        }
    }

    @Test("a column the target lacks is refused before anything is written", .enabled(if: url != nil))
    func schemaMismatch() async throws {
        try await withStores { source, target in
            try await expectCopyFails(
                with: .schemaMismatch(), after: "ALTER TABLE users ADD COLUMN shoe_size INTEGER", from: source, to: target)
        }
    }

    @Test("only SQLite is copied, and only into PostgreSQL")
    func direction() async throws {
        let source = try await SQLStorage.sqlite(path: nil)
        let target = try await SQLStorage.sqlite(path: nil)
        await #expect(throws: DatabaseCopyError.unsupported()) { try await DatabaseCopier(from: source, to: target).copy() }
        try await source.shutdown()
        try await target.shutdown()
    }

    /// Fills the source and changes it with `statement`, then expects the copy to fail with
    /// `error` and to leave every table of the target empty.
    private func expectCopyFails(
        with error: DatabaseCopyError, after statement: String, from source: SQLStorage, to target: SQLStorage
    ) async throws {
        try await DeploymentFixture().fill(source)
        try await source.executor.write { try await $0.raw(SQLQueryString(statement)).run() }
        await #expect(throws: error) { try await DatabaseCopier(from: source, to: target).copy() }
        #expect(try await rowCounts(target, tablesOf: source).values.allSatisfy { $0 == 0 })
    }

    /// A file database (the copy reads on a reader connection, as the command does) and a fresh
    /// PostgreSQL schema.
    private func withStores(_ body: (SQLStorage, SQLStorage) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-copy-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let source = try await SQLStorage.sqlite(path: path)
        let schema = PostgresConformanceTests.uniqueSchema("copy_")
        let target = try await SQLStorage.postgres(
            url: try #require(Self.url), maxConnections: 4, schema: schema, timeout: .seconds(60))
        do {
            try await body(source, target)
        } catch {
            try? await source.shutdown()
            try? await target.shutdown()
            throw error
        }
        try await source.shutdown()
        try await target.shutdown()
    }

    /// Rows per table of `store`, for the tables of the SQLite `source`.
    private func rowCounts(_ store: SQLStorage, tablesOf source: SQLStorage) async throws -> [String: Int] {
        let tables = try await source.executor.read { try await TableCopy.sqliteTables($0) }
        return try await store.executor.read { db in
            var counts: [String: Int] = [:]
            for table in tables {
                counts[table] = try await db.raw("SELECT count(*) AS n FROM \(ident: table)").first()?.int("n")
            }
            return counts
        }
    }
}
