import Foundation
import SQLKit
import SesameCore

/// Copies a whole SQLite deployment into an empty PostgreSQL database, so it can move to
/// several instances without losing users, keys or live tokens.
///
/// Tables and columns are read from the databases themselves, not listed here: every table
/// the migrations create (besides their own bookkeeping) is copied, whatever columns it has
/// gained since. The target gets its schema from its own migrations before the copy.
///
/// ```swift
/// let source = try await SQLStorage.sqlite(path: "sesame-data/sesame.sqlite")
/// let target = try await SQLStorage.postgres(url: "postgres://sesame:…@db:5432/sesame")
/// let tables = try await DatabaseCopier(from: source, to: target).copy()
/// ```
public struct DatabaseCopier: Sendable {
    /// One table's share of a copy.
    public struct Table: Sendable, Equatable {
        /// The table's name.
        public let name: String
        /// How many rows were copied.
        public let rows: Int
    }

    private let source: SQLStorage
    private let target: SQLStorage
    private let batchSize: Int

    /// - Parameters:
    ///   - source: an SQLite store; it is only read.
    ///   - target: a PostgreSQL store with no data in it.
    ///   - batchSize: rows read and inserted per statement (fewer when a table is wide).
    public init(from source: SQLStorage, to target: SQLStorage, batchSize: Int = 1000) {
        self.source = source
        self.target = target
        self.batchSize = max(1, batchSize)
    }

    /// Copies every row of every table in one PostgreSQL transaction, so a failure leaves the
    /// target as empty as it was, and moves each serial column's sequence past the copied rows.
    /// The source is read from one snapshot; writes made to it meanwhile are not carried over.
    /// - Returns: the tables copied, by name, with their row counts.
    /// - Throws: ``DatabaseCopyError`` for a target that holds data, a target schema that lacks
    ///   a table or column, or a value its target column cannot take; ``StorageError`` when a
    ///   database fails.
    public func copy() async throws -> [Table] {
        guard source.executor.flavor == .sqlite, target.executor.flavor == .postgres else {
            throw DatabaseCopyError.unsupported("copies go from SQLite to PostgreSQL")
        }
        return try await source.executor.read { [target] reader in
            try await Self.inSnapshot(reader) {
                let tables = try await TableCopy.sqliteTables(reader)
                return try await target.executor.bulkTransaction { writer in
                    try await copyTables(tables, from: reader, to: writer)
                }
            }
        }
    }

    private func copyTables(_ tables: [String], from reader: any SQLDatabase, to writer: any SQLDatabase) async throws -> [Table]
    {
        var plans: [TableCopy] = []
        for table in tables { plans.append(try await TableCopy.plan(table, source: reader, target: writer)) }
        // Checked before anything is written, so the message names what was already there.
        for plan in plans { try await plan.requireEmpty(writer) }
        var copied: [Table] = []
        for plan in plans {
            copied.append(Table(name: plan.table, rows: try await plan.copyRows(from: reader, to: writer, batchSize: batchSize)))
        }
        // Last: setval is not undone by a rollback, so it waits until nothing else can fail.
        for plan in plans { try await plan.resetSequences(writer) }
        return copied
    }

    /// Runs `body` in one read snapshot: a SAVEPOINT outside a transaction begins a deferred
    /// one, and inside one (an in-memory database reads on its writer) it simply nests.
    private static func inSnapshot<T>(_ db: any SQLDatabase, _ body: () async throws -> T) async throws -> T {
        try await db.raw("SAVEPOINT sesame_copy").run()
        do {
            let result = try await body()
            try await db.raw("RELEASE sesame_copy").run()
            return result
        } catch {
            try? await db.raw("RELEASE sesame_copy").run()
            throw error
        }
    }
}
