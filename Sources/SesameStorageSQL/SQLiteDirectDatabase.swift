import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
import SQLiteNIO

/// SQLKit's view of an ``SQLiteHandle``: the repositories' statements run on the calling
/// thread, with SQLiteKit's dialect and value coding, so the same SQL and decoding serve both
/// drivers.
struct SQLiteDirectDatabase: SQLDatabase {
    let handle: SQLiteHandle
    let logger: Logger
    var eventLoop: any EventLoop { MultiThreadedEventLoopGroup.singleton.any() }
    var dialect: any SQLDialect { SQLiteDialect() }
    var queryLogLevel: Logger.Level? { nil }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeCompletedFuture { try run(query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try run(query, onRow)
    }

    private func run(_ query: any SQLExpression, _ onRow: (any SQLRow) -> Void) throws {
        let (sql, binds) = serialize(query)
        let values = try binds.map(Self.encode)
        try handle.run(sql, values) { onRow(SQLiteDirectRow(row: $0)) }
    }

    /// The bound types the repositories use, without the generic encoder's boxing; anything
    /// else goes through SQLiteKit's encoder.
    private static func encode(_ value: any Encodable & Sendable) throws -> SQLiteData {
        switch value {
        case let text as String: .text(text)
        case let integer as Int: .integer(SQLiteInt64(integer))
        case let integer as Int64: .integer(SQLiteInt64(integer))
        case let data as Data: .blob(ByteBuffer(bytes: data))
        case let bytes as [UInt8]: .blob(ByteBuffer(bytes: bytes))
        default: try encoder.encode(value)
        }
    }

    private static let encoder = SQLiteDataEncoder()
}

/// One row of an ``SQLiteHandle`` result for SQLKit.
struct SQLiteDirectRow: SQLRow {
    let row: SQLiteValues
    private static let decoder = SQLiteDataDecoder()

    var allColumns: [String] { row.columns.names }

    func contains(column: String) -> Bool { row.columns.offsets[column] != nil }

    func decodeNil(column: String) throws -> Bool {
        if case .null = try value(column) { return true }
        return false
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        let value = try value(column)
        // The common cases directly; SQLiteKit's decoder for the rest (JSON, dates, Bool).
        switch value {
        case .text(let text): if let text = text as? D { return text }
        case .integer(let integer): if let integer = Int64(integer) as? D { return integer }
        case .blob(let buffer): if let data = Data(buffer.readableBytesView) as? D { return data }
        default: break
        }
        return try Self.decoder.decode(D.self, from: value)
    }

    private func value(_ column: String) throws -> SQLiteData {
        guard let offset = row.columns.offsets[column] else {
            throw DecodingError.keyNotFound(
                SQLiteColumnKey(column), .init(codingPath: [], debugDescription: "No column named \(column)"))
        }
        return row.values[offset]
    }
}

private struct SQLiteColumnKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
