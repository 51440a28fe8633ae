import Foundation
import SQLKit
import SesameCore

/// How one table is copied: its source columns, each with the kind of value the target
/// column takes, and the target's serial columns. Built from the two catalogs.
struct TableCopy: Sendable {
    let table: String
    let columns: [String]
    let kinds: [ColumnKind]
    let sequences: [(column: String, sequence: String)]

    /// PostgreSQL takes at most 65,535 parameters in one statement.
    private static let maxParameters = 65_535

    /// The source's tables, without SQLite's own and the migration bookkeeping (the target
    /// has its own, written by the same migrations).
    static func sqliteTables(_ db: any SQLDatabase) async throws -> [String] {
        try await db.raw(
            """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
              AND name <> 'schema_migrations' ORDER BY name
            """
        ).all().map { try $0.string("name") }
    }

    /// Matches `table`'s source columns to the target's.
    static func plan(_ table: String, source: any SQLDatabase, target: any SQLDatabase) async throws -> TableCopy {
        let columns = try await source.raw("SELECT name FROM pragma_table_info(\(bind: table)) ORDER BY cid").all()
            .map { try $0.string("name") }
        let targetColumns = try await TargetColumn.all(of: table, in: target)
        guard !targetColumns.isEmpty else {
            throw DatabaseCopyError.schemaMismatch("the target has no table \(table): is its Sesame older than the source's?")
        }
        let kinds = try columns.map { column -> ColumnKind in
            guard let type = targetColumns.first(where: { $0.name == column })?.type else {
                throw DatabaseCopyError.schemaMismatch("the target's \(table) has no column \(column)")
            }
            guard let kind = ColumnKind(postgresType: type) else {
                throw DatabaseCopyError.unsupported("\(table).\(column) is \(type) in the target")
            }
            return kind
        }
        let sequences = targetColumns.compactMap { column in column.sequence.map { (column: column.name, sequence: $0) } }
        return TableCopy(table: table, columns: columns, kinds: kinds, sequences: sequences)
    }

    /// Refuses a target that already holds data: merging two deployments is not a copy.
    func requireEmpty(_ db: any SQLDatabase) async throws {
        guard try await db.raw("SELECT 1 FROM \(ident: table) LIMIT 1").first() == nil else {
            throw DatabaseCopyError.targetNotEmpty("its table \(table) already has rows")
        }
    }

    /// Copies the rows page by page in rowid order (no Sesame table is `WITHOUT ROWID`), one
    /// INSERT per page, every value bound.
    /// - Returns: how many rows were copied.
    func copyRows(from source: any SQLDatabase, to target: any SQLDatabase, batchSize: Int) async throws -> Int {
        guard !columns.isEmpty else { return 0 }
        let pageSize = max(1, min(batchSize, Self.maxParameters / columns.count))
        var after = Int64.min
        var copied = 0
        while true {
            let rows = try await source.raw(
                """
                SELECT rowid AS sesame_rowid, \(idents: columns, joinedBy: ", ") FROM \(ident: table)
                WHERE rowid > \(bind: after) ORDER BY rowid LIMIT \(literal: pageSize)
                """
            ).all()
            guard let last = rows.last else { return copied }
            let insert = target.insert(into: table).columns(columns)
            for row in rows { insert.values(try values(of: row)) }
            try await insert.run()
            copied += rows.count
            after = try last.decode(column: "sesame_rowid", as: Int64.self)
        }
    }

    private func values(of row: any SQLRow) throws -> [any Encodable & Sendable] {
        try zip(columns, kinds).map { column, kind in
            do {
                return try kind.value(of: column, in: row)
            } catch {
                throw DatabaseCopyError.unsupported("\(table).\(column) holds a value that is not \(kind): \(error)")
            }
        }
    }

    /// Moves each serial column's sequence past the copied rows, so the next row the target
    /// numbers itself does not collide with a copied one.
    func resetSequences(_ db: any SQLDatabase) async throws {
        for (column, sequence) in sequences {
            try await db.raw(
                """
                SELECT setval(CAST(\(bind: sequence) AS regclass),
                  COALESCE((SELECT max(\(ident: column)) FROM \(ident: table)), 0) + 1, false)
                """
            ).run()
        }
    }
}

/// A column of the target's table, from PostgreSQL's catalog.
private struct TargetColumn {
    let name: String
    let type: String
    /// The sequence that numbers a serial column.
    let sequence: String?

    static func all(of table: String, in db: any SQLDatabase) async throws -> [TargetColumn] {
        try await db.raw(
            """
            SELECT column_name::text AS name, data_type::text AS type,
              pg_get_serial_sequence(quote_ident(table_name::text), column_name::text) AS sequence
            FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = \(bind: table)
            """
        ).all().map {
            TargetColumn(name: try $0.string("name"), type: try $0.string("type"), sequence: try $0.optionalString("sequence"))
        }
    }
}
