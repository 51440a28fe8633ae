/// Errors every storage backend reports in the same terms, whatever its driver says.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable { case notFound, alreadyExists, unavailable }
    private let code: Code
    /// Detail for logs; never shown to clients.
    public let reason: String

    private init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// The record does not exist.
    public static func notFound(_ reason: String = "") -> StorageError { .init(.notFound, reason) }
    /// A record with the same unique key exists.
    public static func alreadyExists(_ reason: String = "") -> StorageError { .init(.alreadyExists, reason) }
    /// The database cannot be reached or refused the operation.
    public static func unavailable(_ reason: String = "") -> StorageError { .init(.unavailable, reason) }

    /// Whether this is a not-found error.
    public var isNotFound: Bool { code == .notFound }
    /// Whether this is a duplicate-key error.
    public var isAlreadyExists: Bool { code == .alreadyExists }
    /// Whether the database was unavailable.
    public var isUnavailable: Bool { code == .unavailable }

    /// Equality compares the code only, so tests can match on the kind of failure.
    public static func == (lhs: StorageError, rhs: StorageError) -> Bool { lhs.code == rhs.code }

    public var description: String { "\(code): \(reason)" }
}
