import Foundation
import PostgresKit
import PostgresNIO
import SQLKit

/// One row of a prepared statement's result for SQLKit. The column types the repositories
/// read (text, integers, booleans, bytes, and each of them optional) are decoded by
/// PostgresNIO directly; anything else goes through PostgresKit's row, which decodes them the
/// same way but spends a few thousand instructions a column on getting there (a coding
/// path built for every column, protocol casts on the type), about 3 % of a login's
/// instructions.
struct PostgresDirectRow: SQLRow {
    private let row: PostgresRow
    private let columns: PostgresRandomAccessRow

    init(_ row: PostgresRow) {
        self.row = row
        self.columns = row.makeRandomAccess()
    }

    var allColumns: [String] { columns.map(\.columnName) }

    func contains(column: String) -> Bool { columns.contains(column) }

    func decodeNil(column: String) throws -> Bool {
        !columns.contains(column) || columns[column].bytes == nil
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard columns.contains(column) else { return try row.sql().decode(column: column, as: D.self) }
        let cell = columns[column]
        // PostgresKit reads a string of a user-defined type (an enum) as a name: left to it.
        if cell.dataType.isUserDefined { return try row.sql().decode(column: column, as: D.self) }
        if D.self == String.self { return unsafeBitCast(try cell.decode(String.self), to: D.self) }
        if D.self == Int64.self { return unsafeBitCast(try cell.decode(Int64.self), to: D.self) }
        if D.self == Int.self { return unsafeBitCast(try cell.decode(Int.self), to: D.self) }
        if D.self == Bool.self { return unsafeBitCast(try cell.decode(Bool.self), to: D.self) }
        if D.self == Data.self { return unsafeBitCast(try cell.decode(Data.self), to: D.self) }
        if D.self == String?.self { return unsafeBitCast(try cell.decode(String?.self), to: D.self) }
        if D.self == Int64?.self { return unsafeBitCast(try cell.decode(Int64?.self), to: D.self) }
        if D.self == Int?.self { return unsafeBitCast(try cell.decode(Int?.self), to: D.self) }
        if D.self == Data?.self { return unsafeBitCast(try cell.decode(Data?.self), to: D.self) }
        return try row.sql().decode(column: column, as: D.self)
    }
}
