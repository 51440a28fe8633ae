import Foundation
import PostgresNIO
import Testing

@testable import SesameStorageSQL

@Suite("PostgreSQL prepared statements: what is prepared")
struct PostgresStatementTests {
    @Test("statements that read or change rows are prepared; schema changes and settings are not")
    func repeated() {
        for sql in [
            "SELECT 1", "  insert INTO t VALUES ($1)", "\nUPDATE t SET a = 1", "DELETE FROM t",
            "WITH x AS (SELECT 1) SELECT * FROM x", "SELECT(1)",
        ] {
            #expect(PostgresStatementDatabase.isRepeated(sql), "\(sql)")
        }
        for sql in ["CREATE TABLE t (a TEXT)", "ALTER TABLE t ADD COLUMN b TEXT", "SET search_path TO x", "", "SELECTED"] {
            #expect(!PostgresStatementDatabase.isRepeated(sql), "\(sql)")
        }
    }

    @Test("binds PostgresNIO encodes itself are bound; nil is NULL; anything else runs unnamed")
    func bindings() {
        struct Custom: Encodable, Sendable { var a = 1 }
        let none: String? = nil
        let some: String? = "x"
        let bound = PostgresStatementDatabase.bindings(["a", 1, Int64(2), Data([1]), none, some])
        #expect(bound?.count == 6)
        #expect(PostgresStatementDatabase.bindings(["a", Custom()]) == nil)
    }

    @Test("the registry is bounded, and a statement that keeps failing stops being prepared")
    func registry() {
        let registry = PostgresStatementRegistry(capacity: 2)
        let first = registry.name(for: "SELECT 1")
        #expect(first != nil && registry.name(for: "SELECT 1") == first)
        #expect(registry.name(for: "SELECT 2") != nil && registry.name(for: "SELECT 3") == nil)
        var names: Set<String> = [first!]
        for _ in 0..<3 {
            registry.failed("SELECT 1", CancellationError())
            if let name = registry.name(for: "SELECT 1") { names.insert(name) }
        }
        #expect(names.count == 4, "each failure gives the statement a new name")
        registry.failed("SELECT 1", CancellationError())
        #expect(registry.name(for: "SELECT 1") == nil)
    }
}
