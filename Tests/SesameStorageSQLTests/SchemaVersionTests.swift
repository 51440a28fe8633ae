import Foundation
import SQLKit
import Testing

@testable import SesameStorageSQL

@Suite("Schema versions: a newer schema is refused, an older one reported")
struct SchemaVersionTests {
    @Test("the schema's version is the number of migrations applied, named by the last")
    func version() async throws {
        let store = try await SQLStorage.sqlite(path: nil)
        let status = try await store.schemaStatus()
        #expect(status.isCurrent)
        #expect(status.databaseVersion == status.binaryVersion)
        #expect(status.binaryVersion.number == Migrations.all.count)
        #expect(status.binaryVersion.lastID == Migrations.all.last?.id)
        try await store.shutdown()
    }

    /// During a rolling upgrade the previous release keeps serving on the schema the new one
    /// migrated (Tests/e2e/test_rolling_upgrade.py): a step that dropped or renamed what it reads,
    /// or added a column it does not write without a default, would break it mid-upgrade.
    @Test("every migration only adds: no drop, no rename, no new NOT NULL column without a default")
    func migrationsOnlyAdd() {
        for migration in Migrations.all {
            for flavor in [SQLFlavor.sqlite, .postgres] {
                for statement in migration.statements(for: flavor) {
                    let sql = statement.uppercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
                    #expect(!sql.contains("DROP TABLE") && !sql.contains("DROP COLUMN"), "\(migration.id): \(sql)")
                    #expect(!sql.contains("RENAME"), "\(migration.id): \(sql)")
                    #expect(!sql.contains("ALTER COLUMN"), "\(migration.id): \(sql)")
                    if sql.contains("ADD COLUMN") && sql.contains("NOT NULL") {
                        #expect(sql.contains("DEFAULT"), "\(migration.id): \(sql)")
                    }
                }
            }
        }
    }

    /// A binary rolled back after a newer one migrated the database would read and write
    /// tables it does not know the meaning of: it must stop and say why, before changing anything.
    @Test("a database with a migration this binary does not know is refused, naming both versions")
    func newerSchemaRefused() async throws {
        let path = TemporaryDatabase.path()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try await SQLStorage.sqlite(path: path)
        try await store.executor.write { db in
            try await db.raw("INSERT INTO schema_migrations (id, applied_at) VALUES ('9999_newer', 0)").run()
        }
        try await store.shutdown()
        let known = Migrations.all.count
        let error = await #expect(throws: SchemaVersionError.self) { try await SQLStorage.sqlite(path: path) }
        #expect(error?.description.contains("version \(known + 1) (9999_newer)") == true)
        #expect(error?.description.contains("version \(known) (\(Migrations.all.last?.id ?? ""))") == true)
        let reopened = try await SQLStorage.sqlite(path: path, migrate: false)
        #expect(try await reopened.schemaStatus().unknown == ["9999_newer"])
        await #expect(throws: SchemaVersionError.self) { try await reopened.requireCurrentSchema() }
        try await reopened.shutdown()
    }

    @Test("without migrating, an empty database is reported older with every migration pending")
    func olderSchemaReported() async throws {
        let path = TemporaryDatabase.path()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try await SQLStorage.sqlite(path: path, migrate: false)
        let status = try await store.schemaStatus()
        #expect(status.databaseVersion.number == 0 && status.pending == Migrations.all.map(\.id))
        let error = await #expect(throws: SchemaVersionError.self) { try await store.requireCurrentSchema() }
        #expect(error?.description.contains("sesame admin migrate up") == true)
        #expect(try await store.migrate() == Migrations.all.map(\.id))
        try await store.requireCurrentSchema()
        try await store.shutdown()
    }
}
