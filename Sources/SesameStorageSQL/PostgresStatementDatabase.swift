import Foundation
import Logging
import NIOCore
import PostgresKit
import PostgresNIO
import SQLKit
import Synchronization

/// SQLKit's view of one pooled PostgreSQL connection that runs each repository statement as a
/// named prepared statement: the server parses and plans it once per connection instead of
/// on every run (planning was about 40 % of the backends' CPU; docs/performance.md).
///
/// PostgresNIO prepares only statements whose SQL is a static property of a type; the SQL
/// and name of the statement being run are handed to ``DynamicStatement`` through a task
/// local, which PostgresNIO reads synchronously when it queues the statement. Statements
/// that do not fit (a bind PostgresNIO cannot encode itself, or past the registry's
/// capacity) run unnamed, as before.
struct PostgresStatementDatabase: SQLDatabase {
    let connection: PostgresConnection
    let base: any SQLDatabase
    let registry: PostgresStatementRegistry

    init(connection: PostgresConnection, registry: PostgresStatementRegistry) {
        self.connection = connection
        self.base = connection.sql()
        self.registry = registry
    }

    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { base.version }
    var dialect: any SQLDialect { base.dialect }
    var queryLogLevel: Logger.Level? { base.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        base.execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let (sql, binds) = base.serialize(query)
        guard Self.isRepeated(sql), let bindings = Self.bindings(binds), let name = registry.name(for: sql) else {
            return try await base.execute(sql: query, onRow)
        }
        do {
            try await DynamicStatement.$current.withValue(.init(name: name, sql: sql)) {
                for try await row in try await connection.execute(DynamicStatement(bindings: bindings), logger: logger) {
                    onRow(PostgresDirectRow(row))
                }
            }
        } catch {
            registry.failed(sql, sqlState: (error as? PSQLError)?.serverInfo?[.sqlState])
            throw error
        }
    }

    /// Whether `sql` reads or changes rows, the statements that run again and again; schema
    /// changes, locks and settings run once or rarely and would only fill the registry.
    static func isRepeated(_ sql: String) -> Bool {
        let verb = sql.utf8.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 }.prefix { $0 != 0x20 && $0 != 0x0A && $0 != 0x28 }
        return ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"].contains(String(Substring(verb)).uppercased())
    }

    /// PostgresKit's fast path for binds (nil, or a type PostgresNIO encodes); nil when any
    /// bind needs its generic encoder, so the statement runs unnamed through PostgresKit.
    static func bindings(_ binds: [any Encodable & Sendable]) -> PostgresBindings? {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            if Self.appendCommon(bind, to: &bindings) {
                continue
            } else if Self.isNil(bind) {
                bindings.appendNull()
            } else if let value = bind as? any PostgresThrowingDynamicTypeEncodable {
                guard (try? bindings.append(value, context: .default)) != nil else { return nil }
            } else {
                return nil
            }
        }
        return bindings
    }

    /// Appends a string, an integer or bytes (strings and integers also optional), recognised
    /// by comparing the opened value's type: the protocol casts below cost about a thousand
    /// instructions each, and a statement binds about seven values. Each branch names its
    /// type, so PostgresNIO's encoder is specialised for it. False for any other type,
    /// appending nothing.
    private static func appendCommon<Value>(_ value: Value, to bindings: inout PostgresBindings) -> Bool {
        if Value.self == String.self {
            bindings.append(unsafeBitCast(value, to: String.self))
        } else if Value.self == Int64.self {
            bindings.append(unsafeBitCast(value, to: Int64.self))
        } else if Value.self == Int.self {
            bindings.append(unsafeBitCast(value, to: Int.self))
        } else if Value.self == String?.self {
            bindings.append(unsafeBitCast(value, to: String?.self))
        } else if Value.self == Int64?.self {
            bindings.append(unsafeBitCast(value, to: Int64?.self))
        } else if Value.self == Int?.self {
            bindings.append(unsafeBitCast(value, to: Int?.self))
        } else if Value.self == Data.self {
            // A throw (never seen) leaves the statement to the casts below, which fail the same way.
            return (try? bindings.append(unsafeBitCast(value, to: Data.self))) != nil
        } else {
            return false
        }
        return true
    }

    private static func isNil(_ value: any Encodable & Sendable) -> Bool {
        guard let optional = value as? any OptionalBind else { return false }
        return optional.isNone
    }
}

private protocol OptionalBind { var isNone: Bool { get } }
extension Optional: OptionalBind {
    fileprivate var isNone: Bool { self == nil }
}

/// The statement being run, as PostgresNIO's prepared-statement API wants it.
struct DynamicStatement: PostgresPreparedStatement {
    struct Current: Sendable {
        var name: String
        var sql: String
    }

    @TaskLocal static var current = Current(name: "", sql: "")
    static var name: String { current.name }
    static var sql: String { current.sql }

    typealias Row = PostgresRow
    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// A name for each distinct statement, shared by every connection of the process.
///
/// PostgresNIO keeps a statement prepared for the life of its connection, and keeps a failed
/// preparation as failed; so the registry is bounded (statements beyond it run unnamed), and
/// a statement the server refused is given a new name, prepared afresh: after another
/// instance changed a table (`cached plan must not change result type`), or a preparation
/// inside a transaction that had failed. A statement that keeps being refused runs unnamed.
final class PostgresStatementRegistry: Sendable {
    private struct Entry {
        var id: Int
        var generation: Int
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let capacity: Int
    private static let maxGenerations = 4

    init(capacity: Int = 256) {
        self.capacity = capacity
    }

    func name(for sql: String) -> String? {
        entries.withLock { entries in
            if let entry = entries[sql] {
                return entry.generation < Self.maxGenerations ? "sesame_\(entry.id)_\(entry.generation)" : nil
            }
            guard entries.count < capacity else { return nil }
            let entry = Entry(id: entries.count, generation: 0)
            entries[sql] = entry
            return "sesame_\(entry.id)_0"
        }
    }

    /// Whether the server refused a prepared statement that preparing it again would mend: it
    /// no longer fits a table another instance just changed (a rolling upgrade adding a column
    /// to a `SELECT *`), the server no longer holds it, or its parameter types, taken from its
    /// first run, do not fit this run's values.
    static func isStale(_ info: PSQLError.ServerInfo) -> Bool {
        guard let state = info[.sqlState] else { return false }
        return state == "26000" || state == "22P03" || (state == "0A000" && info[.message]?.contains("cached plan") == true)
    }

    /// Records that a run of `sql` failed with the server's `sqlState` (nil: no answer from
    /// the server). Only the server's refusals of the statement itself count: not a lost
    /// connection or a timeout (the connection is gone, and an outage must not leave every
    /// statement unprepared), not a conflict (40), a constraint (23), a lack of resources
    /// (53) or an operator's intervention (57).
    func failed(_ sql: String, sqlState: String?) {
        guard let sqlState, !["08", "23", "40", "53", "57"].contains(String(sqlState.prefix(2))) else { return }
        entries.withLock { $0[sql]?.generation += 1 }
    }
}
