public import Foundation
public import SesameAPI

/// An Auth0 bulk-import file, a JSON array of user objects, read one user at a time: a
/// ``JSONArraySplitter`` finds each element's bounds a piece of the file at a time and only
/// that element is decoded, so a job's memory holds the stored file and one batch of users,
/// never a second copy of the file or the whole file as objects.
public struct UsersFile: Sendable {
    /// The largest file an import takes: about 250,000 users exported from Auth0.
    public static let maxSize = 128 * 1024 * 1024
    /// The largest user: far over any Auth0 user (its metadata is limited to 16 KB each), and
    /// small enough that one element cannot take the memory the stream saves.
    public static let maxUserSize = 1024 * 1024
    /// The bytes read at once.
    static let pieceSize = 64 * 1024

    private let data: Data
    private var offset: Int
    private var splitter = JSONArraySplitter(maxElementSize: UsersFile.maxUserSize)
    /// Elements split from the last piece and not yet taken.
    private var pending: [(bytes: [UInt8], start: JSONArraySplitter.Position)] = []
    private var taken = 0
    /// How many users have been read.
    public private(set) var count = 0

    /// Opens `data`; its faults are found as it is read.
    public init(_ data: Data) {
        self.data = data
        offset = data.startIndex
    }

    /// Reads the whole file, decoding every user, and answers how many it holds.
    /// - Throws: ``UsersFileError`` at the first fault.
    public static func count(_ data: Data) throws -> Int {
        var file = UsersFile(data)
        while try file.next() != nil {}
        return file.count
    }

    /// The next user's object, or nil after the last.
    /// - Throws: ``UsersFileError`` for a fault in the array or an element that is not a
    ///   JSON object.
    public mutating func next() throws -> [String: JSONValue]? {
        guard let element = try nextElement() else { return nil }
        return try Self.user(element.bytes, at: element.start)
    }

    /// Skips `users` users without decoding them (a resumed job starts after those it handled).
    public mutating func skip(_ users: Int) throws {
        while count < users, try nextElement() != nil {}
    }

    /// Up to `limit` next users.
    public mutating func next(_ limit: Int) throws -> [[String: JSONValue]] {
        var batch: [[String: JSONValue]] = []
        while batch.count < limit, let user = try next() { batch.append(user) }
        return batch
    }

    /// One element of the file as a user object.
    /// - Throws: ``UsersFileError`` for invalid JSON or another value than an object.
    static func user(_ bytes: [UInt8], at start: JSONArraySplitter.Position) throws -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw UsersFileError(start, "the user is not valid JSON")
        }
        guard case .object(let object) = value else { throw UsersFileError(start, "each user must be a JSON object") }
        return object
    }

    private mutating func nextElement() throws -> (bytes: [UInt8], start: JSONArraySplitter.Position)? {
        while taken == pending.count {
            (pending, taken) = ([], 0)
            guard offset < data.endIndex else {
                try UsersFileError.mapping { try splitter.finish() }
                return nil
            }
            let end = min(offset + Self.pieceSize, data.endIndex)
            let piece = [UInt8](data[offset..<end])
            offset = end
            var split: [(bytes: [UInt8], start: JSONArraySplitter.Position)] = []
            try UsersFileError.mapping { try splitter.feed(piece) { split.append(($0, $1)) } }
            pending = split
        }
        taken += 1
        count += 1
        return pending[taken - 1]
    }
}

/// A users file uploaded a piece at a time: its bytes are kept for the job (the one copy any
/// instance's worker reads) and each user is checked as it completes, so a malformed file
/// is refused with where its fault is, holding no more than the file itself.
public struct UsersUpload: Sendable {
    /// The file as received.
    public private(set) var data = Data()
    private var splitter = JSONArraySplitter(maxElementSize: UsersFile.maxUserSize)

    /// Creates an upload, with room for `expectedSize` bytes (a request's `Content-Length`).
    public init(expectedSize: Int? = nil) {
        if let expectedSize { data.reserveCapacity(min(max(expectedSize, 0), UsersFile.maxSize)) }
    }

    /// Takes the next piece of the file.
    /// - Throws: 413 once the file is over ``UsersFile/maxSize``; 400 with the line and
    ///   column of the first fault.
    public mutating func append(_ bytes: some Collection<UInt8>) throws {
        guard data.count + bytes.count <= UsersFile.maxSize else {
            throw SesameError(.payloadTooLarge, .requestTooLarge, "The users file is over \(UsersFile.maxSize) bytes.")
        }
        data.append(contentsOf: bytes)
        try Self.refusing {
            try UsersFileError.mapping { try splitter.feed(bytes) { _ = try UsersFile.user($0, at: $1) } }
        }
    }

    /// The number of users, once the whole file has been taken.
    /// - Throws: 400 when the array is not closed, or holds no user.
    public func finish() throws -> Int {
        try Self.refusing { try UsersFileError.mapping { try splitter.finish() } }
        guard splitter.count > 0 else { throw SesameError.invalidRequest("The users file holds no user.") }
        return splitter.count
    }

    /// Runs `body`, answering a file's fault as a 400 that says where it is.
    private static func refusing<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as UsersFileError {
            throw SesameError.invalidRequest(error.description)
        }
    }
}

/// Where and why a users file is malformed.
public struct UsersFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var reason: String

    public var description: String { "users file, line \(line), column \(column): \(reason)." }
}

extension UsersFileError {
    init(_ position: JSONArraySplitter.Position, _ reason: String) {
        (line, column, self.reason) = (position.line, position.column, reason)
    }

    /// Runs `body`, answering a fault in the array's frame as a users file's.
    static func mapping<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as JSONArraySplitter.Failure {
            throw UsersFileError(failure.position, failure.reason)
        }
    }
}
