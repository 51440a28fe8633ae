import ArgumentParser
import Foundation
import Logging
import SesameCore
import SesameServer
import SesameStorageSQL

/// Opens the deployment's database for one command and closes it afterwards.
func withStorage<T: Sendable>(_ options: StorageOptions, _ body: (SQLStorage) async throws -> T) async throws -> T {
    let configuration = try await CLIConfiguration.load(flags: options.flags)
    return try await closing(try await SesameRuntime.openStorage(configuration, logger: .command), body)
}

extension Logger {
    /// Commands log only warnings and errors: their output is what they print.
    static var command: Logger {
        var logger = Logger(label: "sesame")
        logger.logLevel = .warning
        return logger
    }
}

/// Runs `body` with `storage`, then closes it, whether `body` threw or not.
func closing<T: Sendable>(_ storage: SQLStorage, _ body: (SQLStorage) async throws -> T) async throws -> T {
    do {
        let result = try await body(storage)
        try await storage.shutdown()
        return result
    } catch {
        try? await storage.shutdown()
        throw error
    }
}

/// Prints `value` as pretty, key-sorted JSON.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// A usage or lookup problem: printed without a stack, exit status 1 (64 for usage).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
