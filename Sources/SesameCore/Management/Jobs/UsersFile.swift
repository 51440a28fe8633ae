public import Foundation
public import SesameAPI

/// An Auth0 bulk-import file, a JSON array of user objects, read one user at a time: the
/// array is scanned for each element's bounds and only that element is decoded, so a job's
/// memory holds the file's bytes and one batch of users, never the whole file as objects.
public struct UsersFile: Sendable {
    /// The largest file an import takes: about 250,000 users exported from Auth0.
    public static let maxSize = 128 * 1024 * 1024

    private let bytes: [UInt8]
    private var offset = 0
    private var done = false
    /// How many users have been read.
    public private(set) var count = 0

    /// Opens `data`, which must begin (after white space) with `[`.
    /// - Throws: ``UsersFileError`` when it does not.
    public init(_ data: Data) throws {
        bytes = [UInt8](data)
        skipSpace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "[") else {
            throw error("the file must be a JSON array of users")
        }
        offset += 1
        skipSpace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") { try close() }
    }

    /// Reads the whole file, decoding every user, and answers how many it holds.
    /// - Throws: ``UsersFileError`` at the first fault.
    public static func count(_ data: Data) throws -> Int {
        var file = try UsersFile(data)
        while try file.next() != nil {}
        return file.count
    }

    /// The next user's object, or nil after the last.
    /// - Throws: ``UsersFileError`` for a fault in the array or an element that is not a
    ///   JSON object.
    public mutating func next() throws -> [String: JSONValue]? {
        guard let range = try nextRange() else { return nil }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(bytes[range]))
        } catch {
            throw self.error("the user is not valid JSON", at: range.lowerBound)
        }
        guard case .object(let object) = value else { throw self.error("each user must be a JSON object", at: range.lowerBound) }
        return object
    }

    /// Skips `users` users without decoding them (a resumed job starts after those it handled).
    public mutating func skip(_ users: Int) throws {
        while count < users, try nextRange() != nil {}
    }

    /// Up to `limit` next users.
    public mutating func next(_ limit: Int) throws -> [[String: JSONValue]] {
        var batch: [[String: JSONValue]] = []
        while batch.count < limit, let user = try next() { batch.append(user) }
        return batch
    }

    private mutating func nextRange() throws -> Range<Int>? {
        guard !done else { return nil }
        skipSpace()
        guard offset < bytes.count else { throw error("the file ends before the array is closed") }
        let start = offset
        try skipValue()
        let range = start..<offset
        count += 1
        skipSpace()
        guard offset < bytes.count else { throw error("the file ends before the array is closed") }
        switch bytes[offset] {
        case UInt8(ascii: ","): offset += 1
        case UInt8(ascii: "]"): try close()
        default: throw error("expected , or ] after a user")
        }
        return range
    }

    /// Passes the closing bracket; only white space may follow it.
    private mutating func close() throws {
        offset += 1
        skipSpace()
        guard offset == bytes.count else { throw error("nothing may follow the array") }
        done = true
    }

    /// Passes one JSON value: an object or array to its matching bracket (strings and their
    /// escapes kept whole), a string to its quote, a scalar to the next delimiter. Its
    /// content is checked when it is decoded.
    private mutating func skipValue() throws {
        switch bytes[offset] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            repeat {
                guard offset < bytes.count else { throw error("the file ends inside a user") }
                switch bytes[offset] {
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                case UInt8(ascii: "\""): try skipString()
                default: break
                }
                offset += 1
            } while depth > 0
        case UInt8(ascii: "\""):
            try skipString()
            offset += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ","):
            throw error("expected a user")
        default:
            while offset < bytes.count, !Self.endsScalar(bytes[offset]) { offset += 1 }
        }
    }

    /// Whether `byte` ends a scalar at the array's level.
    private static func endsScalar(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Moves from an opening quote to its closing quote.
    private mutating func skipString() throws {
        let start = offset
        offset += 1
        while offset < bytes.count, bytes[offset] != UInt8(ascii: "\"") {
            if bytes[offset] == UInt8(ascii: "\\") { offset += 1 }
            offset += 1
        }
        guard offset < bytes.count else { throw error("a string is not closed", at: start) }
    }

    private mutating func skipSpace() {
        while offset < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[offset]) { offset += 1 }
    }

    /// A fault at `position` (the reader's place unless given), by line and column.
    private func error(_ reason: String, at position: Int? = nil) -> UsersFileError {
        let position = min(position ?? offset, bytes.count)
        let before = bytes[..<position]
        let line = before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let column = position - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        return UsersFileError(line: line, column: column, reason: reason)
    }
}

/// Where and why a users file is malformed.
public struct UsersFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var reason: String

    public var description: String { "users file, line \(line), column \(column): \(reason)." }
}
