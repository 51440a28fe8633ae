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
        try direct(value) ?? encoder.encode(value)
    }

    /// The value opened from its box and recognised by comparing its type, not by casts: a
    /// failed `as?` costs hundreds of instructions, and a statement binds about seven values.
    private static func direct<Value>(_ value: Value) -> SQLiteData? {
        if Value.self == String.self { return .text(unsafeBitCast(value, to: String.self)) }
        if Value.self == Int64.self { return .integer(SQLiteInt64(unsafeBitCast(value, to: Int64.self))) }
        if Value.self == Int.self { return .integer(SQLiteInt64(unsafeBitCast(value, to: Int.self))) }
        if Value.self == Data.self { return .blob(ByteBuffer(bytes: unsafeBitCast(value, to: Data.self))) }
        if Value.self == [UInt8].self { return .blob(ByteBuffer(bytes: unsafeBitCast(value, to: [UInt8].self))) }
        if Value.self == String?.self { return unsafeBitCast(value, to: String?.self).map { .text($0) } ?? .null }
        if Value.self == Int64?.self { return unsafeBitCast(value, to: Int64?.self).map { .integer(SQLiteInt64($0)) } ?? .null }
        if Value.self == Int?.self { return unsafeBitCast(value, to: Int?.self).map { .integer(SQLiteInt64($0)) } ?? .null }
        if Value.self == Data?.self { return unsafeBitCast(value, to: Data?.self).map { .blob(ByteBuffer(bytes: $0)) } ?? .null }
        return nil
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
