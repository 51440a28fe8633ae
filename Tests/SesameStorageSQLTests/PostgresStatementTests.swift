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

    @Test("the registry is bounded, and a statement the server keeps refusing stops being prepared")
    func registry() {
        let registry = PostgresStatementRegistry(capacity: 2)
        let first = registry.name(for: "SELECT 1")
        #expect(first != nil && registry.name(for: "SELECT 1") == first)
        #expect(registry.name(for: "SELECT 2") != nil && registry.name(for: "SELECT 3") == nil)
        var names: Set<String> = [first!]
        for state in ["0A000", "26000", "25P02"] {
            registry.failed("SELECT 1", sqlState: state)
            if let name = registry.name(for: "SELECT 1") { names.insert(name) }
        }
        #expect(names.count == 4, "each refusal gives the statement a new name")
        registry.failed("SELECT 1", sqlState: "42P01")
        #expect(registry.name(for: "SELECT 1") == nil)
    }

    /// The failure: during a database outage every statement times out; had those counted,
    /// every statement would run unprepared for the rest of the process's life.
    @Test("lost connections, timeouts, conflicts and constraint violations do not rename a statement")
    func notRefusals() {
        let registry = PostgresStatementRegistry()
        let name = registry.name(for: "SELECT 1")
        for state in [nil, "08006", "40001", "40P01", "23505", "53300", "57014", nil, nil, nil] as [String?] {
            registry.failed("SELECT 1", sqlState: state)
        }
        #expect(registry.name(for: "SELECT 1") == name)
    }
}
