import Foundation
import SQLiteNIO
import Testing

@testable import SesameStorageSQL

/// A connection keeps the statements it will run again, and not a migration's: those run once
/// in a database's life, and an idle server held hundreds of them (docs/performance.md).
@Suite("SQLite: the statements a connection keeps prepared")
struct SQLiteStatementCacheTests {
    @Test("statements that change the schema are run but not kept; the others are kept once")
    func schemaChangesAreNotKept() throws {
        let handle = try SQLiteHandle(path: nil)
        defer { handle.close() }
        let schema = [
            "CREATE TABLE kept (value TEXT)", "\n    CREATE INDEX kept_value ON kept (value)",
            "ALTER TABLE kept ADD COLUMN other TEXT", "CREATE TABLE gone (id INTEGER)", "DROP TABLE gone",
        ]
        for statement in schema { try handle.run(statement, []) { _ in } }
        #expect(handle.keptStatements == 0)
        for value in ["a", "b"] { try handle.run("INSERT INTO kept (value) VALUES (?1)", [.text(value)]) { _ in } }
        var count = 0
        try handle.run("SELECT value FROM kept", []) { _ in count += 1 }
        #expect(count == 2)
        #expect(handle.keptStatements == 2)
    }

    @Test("the verb is read as a whole word after any leading blanks")
    func verbs() {
        #expect(SQLiteHandle.changesSchema("  \tCREATE UNIQUE INDEX x ON t (a)"))
        #expect(SQLiteHandle.changesSchema("DROP INDEX x"))
        #expect(!SQLiteHandle.changesSchema("SELECT created_at FROM t"))
        #expect(!SQLiteHandle.changesSchema("CREATED"))
        #expect(!SQLiteHandle.changesSchema("WITH x AS (SELECT 1) SELECT * FROM x"))
        #expect(!SQLiteHandle.changesSchema("PRAGMA wal_checkpoint(PASSIVE)"))
    }

    /// A fresh database's migrations filled the writer with pages and statements serving does
    /// not use; let go, the connection must go on working, preparing again what it needs.
    @Test("releasing memory drops the kept statements, and the connection goes on working")
    func releaseMemoryKeepsWorking() throws {
        let handle = try SQLiteHandle(path: nil)
        defer { handle.close() }
        try handle.run("CREATE TABLE kept (value TEXT)", []) { _ in }
        try handle.run("INSERT INTO kept (value) VALUES (?1)", [.text("a")]) { _ in }
        #expect(handle.keptStatements == 1)
        handle.releaseMemory()
        #expect(handle.keptStatements == 0)
        try handle.run("INSERT INTO kept (value) VALUES (?1)", [.text("b")]) { _ in }
        var values: [String] = []
        try handle.run("SELECT value FROM kept ORDER BY value", []) { row in
            if case .text(let value) = row.values[0] { values.append(value) }
        }
        #expect(values == ["a", "b"])
    }
}
