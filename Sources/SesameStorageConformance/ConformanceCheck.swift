import Foundation
public import SesameCore

/// One named storage check. Every backend's test target runs all of them unchanged:
///
/// ```swift
/// @Test(arguments: StorageConformance.checks)
/// func conformance(_ check: ConformanceCheck) async throws {
///     let store = try await SQLStorage.sqlite(path: nil)
///     try await check.run(store, TestClock())
/// }
/// ```
public struct ConformanceCheck: Sendable, CustomStringConvertible {
    /// A short name shown in test output.
    public let name: String
    /// The check; throws ``ConformanceFailure`` when the backend misbehaves.
    public let run: @Sendable (any SesameStorage, TestClock) async throws -> Void

    /// Creates a check.
    public init(_ name: String, run: @escaping @Sendable (any SesameStorage, TestClock) async throws -> Void) {
        self.name = name
        self.run = run
    }

    public var description: String { name }
}

/// A failed expectation in a conformance check, with where it happened.
public struct ConformanceFailure: Error, CustomStringConvertible {
    public let message: String
    public let location: String
    public var description: String { "\(location): \(message)" }
}

/// Throws unless `condition` holds. The suite throws instead of using a test framework so
/// that it is a plain library any test target can call.
func expect(
    _ condition: @autoclosure () async throws -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) async throws {
    guard try await condition() else { throw ConformanceFailure(message: message(), location: "\(file):\(line)") }
}

/// Throws unless `body` throws a ``StorageError`` equal to `expected`.
func expectStorageError(
    _ expected: StorageError, file: StaticString = #fileID, line: UInt = #line, _ body: () async throws -> Void
) async throws {
    do {
        try await body()
    } catch let error as StorageError where error == expected {
        return
    }
    throw ConformanceFailure(message: "expected \(expected)", location: "\(file):\(line)")
}
