/// Why ``DatabaseCopier`` did not copy. The target is left as it was when one of these is
/// thrown: nothing was written, or the transaction was rolled back.
public struct DatabaseCopyError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable { case targetNotEmpty, schemaMismatch, unsupported }
    private let code: Code
    /// What was found, for the operator.
    public let reason: String

    private init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// The target already holds data.
    public static func targetNotEmpty(_ reason: String = "") -> DatabaseCopyError { .init(.targetNotEmpty, reason) }
    /// A table or column of the source is missing from the target's schema.
    public static func schemaMismatch(_ reason: String = "") -> DatabaseCopyError { .init(.schemaMismatch, reason) }
    /// The databases or a value are of a kind the copier does not handle.
    public static func unsupported(_ reason: String = "") -> DatabaseCopyError { .init(.unsupported, reason) }

    /// Errors of the same kind are equal whatever their reasons, so tests can match them.
    public static func == (lhs: DatabaseCopyError, rhs: DatabaseCopyError) -> Bool { lhs.code == rhs.code }

    public var description: String {
        switch code {
        case .targetNotEmpty: "the target database is not empty (\(reason)); copy into an empty database"
        case .schemaMismatch: "the target's schema differs from the source's: \(reason)"
        case .unsupported: "cannot copy: \(reason)"
        }
    }
}
