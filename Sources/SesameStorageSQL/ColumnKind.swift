import Foundation
import SQLKit

/// The kind of value a PostgreSQL column takes. PostgreSQL wants each parameter typed, and
/// SQLite types values loosely, so a copied value is read as what its target column holds:
/// bytes stay bytes, integers stay integers, NULL stays NULL.
enum ColumnKind: Sendable, CustomStringConvertible {
    case integer, real, text, bytes, boolean

    /// The kind for an `information_schema.columns.data_type`, or nil for types the schema
    /// does not use.
    init?(postgresType: String) {
        switch postgresType {
        case "bigint", "integer", "smallint": self = .integer
        case "double precision", "real": self = .real
        case "text", "character varying", "character": self = .text
        case "bytea": self = .bytes
        case "boolean": self = .boolean
        default: return nil
        }
    }

    /// Reads `column` of a source row as this kind.
    func value(of column: String, in row: any SQLRow) throws -> any Encodable & Sendable {
        switch self {
        case .integer: return try row.decode(column: column, as: Int64?.self)
        case .real: return try row.decode(column: column, as: Double?.self)
        case .text: return try row.decode(column: column, as: String?.self)
        case .bytes: return try row.decode(column: column, as: Data?.self)
        // Booleans are 0/1 in SQLite.
        case .boolean: return try row.decode(column: column, as: Int64?.self).map { $0 != 0 }
        }
    }

    var description: String {
        switch self {
        case .integer: "an integer"
        case .real: "a number"
        case .text: "text"
        case .bytes: "bytes"
        case .boolean: "a boolean"
        }
    }
}
