import Foundation
import Logging
import SesameCore
import SesameStorageSQL

/// A started Sesame: configuration, open storage and the wired domain. `serve`, the
/// benchmark and the tests all start the server through this one path.
public struct SesameRuntime: Sendable {
    public let configuration: ServerConfiguration
    public let storage: SQLStorage
    public let sesame: Sesame
    public let logger: Logger

    /// Creates the data directory if needed, opens and migrates the database, runs the
    /// first-start setup and wires the senders.
    public static func start(
        _ configuration: ServerConfiguration, clock: any SesameClock = SystemClock(),
        random: any RandomSource = SystemRandomSource(), logger: Logger = Logger(label: "sesame")
    ) async throws -> SesameRuntime {
        var configuration = configuration
        try await configuration.resolveEphemeralPort()
        let storage = try await openStorage(configuration, logger: logger)
        let delivery = try DeliveryFactory(configuration: configuration, storage: storage, clock: clock, random: random, logger: logger)
            .make()
        let sesame = try await Sesame.bootstrap(
            storage: storage, settings: configuration.settings, delivery: delivery,
            connections: configuration.connections, clock: clock, random: random, logger: logger)
        return SesameRuntime(configuration: configuration, storage: storage, sesame: sesame, logger: logger)
    }

    /// What `serve` runs with: the instance's own configuration (flags, environment, file),
    /// over the shared settings stored in the database that configuration names.
    /// - Throws: ``ConfigurationError`` listing every problem of either.
    public static func configuration(
        flags: [String: String], environment: [String: String], logger: Logger
    ) async throws -> ServerConfiguration {
        let local = try await ServerConfiguration.load(flags: flags, environment: environment)
        let storage = try await openStorage(local, logger: logger)
        let stored: [String: String]
        do {
            stored = try await storage.storedSettings()
            try await storage.shutdown()
        } catch {
            try? await storage.shutdown()
            throw error
        }
        guard !stored.isEmpty else { return local }
        return try await ServerConfiguration.load(flags: flags, environment: environment, stored: stored)
    }

    /// Opens the configured database without the first-start setup (for `sesame admin` and
    /// `sesame outbox`, which must not create keys).
    public static func openStorage(_ configuration: ServerConfiguration, logger: Logger) async throws -> SQLStorage {
        if let url = configuration.databaseURL {
            return try await SQLStorage.postgres(
                url: url, maxConnections: configuration.databasePoolSize,
                timeout: .seconds(configuration.databaseTimeout), logger: logger)
        }
        if configuration.databasePath == nil {
            try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        }
        return try await SQLStorage.sqlite(path: configuration.sqlitePath, logger: logger)
    }

    /// Closes the database.
    public func shutdown() async throws {
        try await storage.shutdown()
    }
}
