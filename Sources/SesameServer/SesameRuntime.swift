import Foundation
public import Logging
public import SesameCore
public import SesameStorageSQL

/// A started Sesame: configuration, open storage and the wired domain. `serve`, the
/// benchmark and the tests all start the server through this one path.
public struct SesameRuntime: Sendable {
    public let configuration: ServerConfiguration
    public let storage: SQLStorage
    public let sesame: Sesame
    public let logger: Logger
    /// The hosted pages, with the operator's templates over the shipped ones.
    public let pages: PageTemplates
    /// Whether the instance wants traffic (false once a shutdown begins).
    public let readiness = Readiness()

    /// Creates the data directory if needed, opens and migrates the database, runs the
    /// first-start setup and wires the senders.
    public static func start(
        _ configuration: ServerConfiguration, clock: any SesameClock = SystemClock(),
        random: any RandomSource = SystemRandomSource(), logger: Logger = Logger(label: "sesame")
    ) async throws -> SesameRuntime {
        let storage = try await openStorage(configuration, logger: logger)
        return try await closingOnFailure(storage) {
            try await MasterKeySource.unseal(storage, configuration, generate: true, random: random, logger: logger)
            return try await start(configuration, on: storage, clock: clock, random: random, logger: logger)
        }
    }

    /// What `serve` runs: `local` (the instance's own flags, environment and file) over the
    /// shared settings stored in the database it names, read through the storage the runtime
    /// then keeps (stored settings never choose the database).
    /// - Parameters:
    ///   - withStored: `local`'s sources read again with `stored` as the lowest one.
    ///   - migrate: false (`serve --no-migrate`) refuses a schema that is not already this
    ///     binary's instead of migrating it.
    /// - Throws: ``ConfigurationError`` listing every problem of the combined configuration;
    ///   ``SchemaVersionError`` for a newer schema (or an older one without `migrate`).
    public static func start(
        _ local: ServerConfiguration, withStored: ([String: String]) async throws -> ServerConfiguration,
        migrate: Bool = true, clock: any SesameClock = SystemClock(), random: any RandomSource = SystemRandomSource(),
        logger: Logger = Logger(label: "sesame")
    ) async throws -> SesameRuntime {
        let storage = try await openStorage(local, migrate: migrate, logger: logger)
        return try await closingOnFailure(storage) {
            if !migrate { try await storage.requireCurrentSchema() }
            // Before the stored settings are read: they are sealed too.
            try await MasterKeySource.unseal(storage, local, generate: true, random: random, logger: logger)
            let stored = try await storage.storedSettings()
            let configuration = stored.isEmpty ? local : try await withStored(stored)
            return try await start(configuration, on: storage, clock: clock, random: random, logger: logger)
        }
    }

    private static func start(
        _ configuration: ServerConfiguration, on storage: SQLStorage, clock: any SesameClock, random: any RandomSource,
        logger: Logger
    ) async throws -> SesameRuntime {
        var configuration = configuration
        try await configuration.resolveEphemeralPort()
        let delivery = try DeliveryFactory(
            configuration: configuration, storage: storage, clock: clock, random: random, logger: logger
        )
        .make()
        let sesame = try await Sesame.bootstrap(
            storage: storage, settings: configuration.settings, delivery: delivery,
            connections: configuration.connections, clock: clock, random: random, logger: logger,
            exportCompression: GzipCompression())
        let pages = try PageTemplates.load(
            overrides: configuration.templatesDirectory, defaultCountry: configuration.smsDefaultCountry)
        return SesameRuntime(configuration: configuration, storage: storage, sesame: sesame, logger: logger, pages: pages)
    }

    private static func closingOnFailure<T>(_ storage: SQLStorage, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            try? await storage.shutdown()
            throw error
        }
    }

    /// Opens the configured database without the first-start setup (for `sesame admin` and
    /// `sesame outbox`, which must not create keys), its secrets opened with the configured
    /// master key; `migrate` and `create` as for ``openStorage(_:migrate:create:logger:)``.
    public static func openUnsealed(
        _ configuration: ServerConfiguration, migrate: Bool = true, create: Bool = true, logger: Logger
    ) async throws -> SQLStorage {
        let storage = try await openStorage(configuration, migrate: migrate, create: create, logger: logger)
        return try await closingOnFailure(storage) {
            // Without a key the database opens all the same: most commands read no secret,
            // and one that does says the secrets are sealed.
            let environment = ProcessInfo.processInfo.environment
            if let key = try MasterKeySource.configured(configuration, environment: environment) {
                _ = try await MasterKeySource.reporting { try await storage.unseal(with: key, random: SystemRandomSource()) }
            }
            return storage
        }
    }

    /// Rewraps the database's data key under the master key in `newKeyFile`
    /// (`sesame admin keys rotate-master`).
    /// - Returns: the old and new key ids, and the key file beside the database when it was replaced.
    public static func rotateMasterKey(
        _ configuration: ServerConfiguration, newKeyFile: String, logger: Logger
    ) async throws -> (old: String, new: String, replacedFile: String?) {
        let storage = try await openStorage(configuration, create: false, logger: logger)
        return try await closingOnFailure(storage) {
            let rotated = try await MasterKeySource.rotate(
                storage, configuration, newKeyFile: newKeyFile, random: SystemRandomSource())
            try await storage.shutdown()
            return rotated
        }
    }

    /// The master key file an SQLite deployment keeps beside its database, when it has one
    /// and no key is configured elsewhere.
    public static func masterKeyFile(_ configuration: ServerConfiguration) -> String? {
        let path = MasterKeySource.besideDatabase(configuration)
        return configuration.masterKeyFile ?? (FileManager.default.fileExists(atPath: path) ? path : nil)
    }

    /// Opens the configured database as it is, without the first-start setup: sealed secrets
    /// stay closed.
    /// - Parameters:
    ///   - migrate: false leaves the schema as it is (`sesame admin migrate`).
    ///   - create: false refuses an SQLite file that does not exist instead of creating it
    ///     (every command but `serve`: one run in the wrong directory must not make a new,
    ///     empty deployment).
    /// - Throws: ``MissingDatabaseError`` without `create` when there is no SQLite file.
    public static func openStorage(
        _ configuration: ServerConfiguration, migrate: Bool = true, create: Bool = true, logger: Logger
    ) async throws -> SQLStorage {
        if let url = configuration.databaseURL {
            return try await SQLStorage.postgres(
                url: url, maxConnections: configuration.databasePoolSize, timeout: .seconds(configuration.databaseTimeout),
                preparedStatements: configuration.databasePreparedStatements, migrate: migrate, logger: logger)
        }
        guard create || FileManager.default.fileExists(atPath: configuration.sqlitePath) else {
            throw MissingDatabaseError(path: configuration.sqlitePath)
        }
        try DataDirectory.prepare(
            directory: configuration.databasePath == nil ? configuration.dataDirectory : nil,
            database: configuration.sqlitePath, logger: logger)
        return try await SQLStorage.sqlite(path: configuration.sqlitePath, migrate: migrate, logger: logger)
    }

    /// Closes the database.
    public func shutdown() async throws {
        try await storage.shutdown()
    }
}

/// No SQLite database where the configuration points, for a command that must not create one.
public struct MissingDatabaseError: Error, CustomStringConvertible {
    /// The file looked for.
    public let path: String

    public var description: String {
        "no database at \(path): give the deployment's --data-dir (or --database, --config), "
            + "or start `sesame serve` there once to create it"
    }
}
