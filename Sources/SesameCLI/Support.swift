import ArgumentParser
import Foundation
import Logging
import SesameCore
import SesameParsers
import SesameServer
import SesameStorageSQL

/// Opens the deployment's existing database for one command and closes it afterwards; a
/// missing SQLite file is an error naming where it was looked for, never created. Failures
/// name the database; `--verbose` names it in any case.
/// - Parameter migrate: false leaves the schema as it is (`sesame admin migrate`).
func withStorage<T: Sendable>(
    _ options: StorageOptions, migrate: Bool = true, _ body: (SQLStorage) async throws -> T
) async throws -> T {
    let configuration = try await CLIConfiguration.load(flags: options.flags)
    let database = Banner.database(configuration)
    if options.verbose { printError("database: \(database)") }
    let storage: SQLStorage
    do {
        storage = try await CLIConfiguration.reporting {
            try await SesameRuntime.openUnsealed(configuration, migrate: migrate, create: false, logger: .command)
        }
    } catch let error as MissingDatabaseError {
        throw CommandFailure(error.description)
    }
    do {
        return try await closing(storage, body)
    } catch let error as CommandFailure {
        throw CommandFailure("\(error.description) (database: \(database))")
    } catch let error as SesameError {
        throw CommandFailure("\(error.message) (database: \(database))")
    }
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

/// The `user_id` an option names: a `user_id` as given (a deleted user's still finds their
/// audit events), an email address or a phone number looked up; nil for nil.
func resolvedUserID(_ reference: String?, in store: SQLStorage) async throws -> String? {
    guard let reference, User.parse(userID: reference) == nil else { return reference }
    do {
        return try await UserAdministration(storage: store, logger: .command).user(matching: reference).userID
    } catch let error as SesameError {
        throw CommandFailure(error.message)
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
