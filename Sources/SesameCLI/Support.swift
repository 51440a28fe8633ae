import ArgumentParser
import Foundation
import Logging
import SesameCore
import SesameParsers
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

/// An operator's change through a Core administration service: users or credentials.
protocol AdministrationService: Sendable {
    init(storage: any SesameStorage, clock: any SesameClock, logger: Logger)
}

extension UserAdministration: AdministrationService {
    init(storage: any SesameStorage, clock: any SesameClock, logger: Logger) {
        self.init(storage: storage, clock: clock, random: SystemRandomSource(), logger: logger)
    }
}
extension CredentialAdministration: AdministrationService {}
extension ApplicationAdministration: AdministrationService {
    init(storage: any SesameStorage, clock: any SesameClock, logger: Logger) {
        self.init(storage: storage, clock: clock, random: SystemRandomSource(), logger: logger)
    }
}

/// Runs `body` with a Core administration service over the configured storage; a refusal
/// (an unknown id, say) becomes a message and exit status 1, not a stack trace.
func administer<Service: AdministrationService, T: Sendable>(
    _ storage: StorageOptions, with service: Service.Type, _ body: @escaping @Sendable (Service) async throws -> T
) async throws -> T {
    do {
        return try await withStorage(storage) { store in
            try await body(Service(storage: store, clock: SystemClock(), logger: .command))
        }
    } catch let error as SesameError {
        throw CommandFailure(error.message)
    }
}

/// Runs `body` with a service that needs the configuration as well as the storage (the
/// outbox's settings, the connections' message languages); a refusal becomes a message and
/// exit status 1.
func withConfiguredService<Service: Sendable, T: Sendable>(
    _ options: StorageOptions, make: @escaping @Sendable (ServerConfiguration, SQLStorage) throws -> Service,
    _ body: @escaping @Sendable (Service) async throws -> T
) async throws -> T {
    let configuration = try await CLIConfiguration.load(flags: options.flags)
    do {
        return try await withStorage(options) { store in try await body(try make(configuration, store)) }
    } catch let error as SesameError {
        throw CommandFailure(error.message)
    } catch let error as MessageTemplateError {
        throw CommandFailure(error.description)
    }
}

/// Writes a line to standard error (warnings that must not mix with `--json` output).
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
