import ArgumentParser
import Foundation
import Hummingbird
import Logging
import SesameCore
import SesameServer
import SesameStorageSQL

/// `sesame serve`: runs the server. Zero configuration: SQLite and keys in ./sesame-data.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the identity server.")

    @OptionGroup var storage: StorageOptions

    @Option(help: "Port to listen on (SESAME_PORT; default 3000).")
    var port: Int?

    @Option(help: "Address to bind (SESAME_HOST; default 127.0.0.1).")
    var host: String?

    @Option(help: "Public base URL, the token issuer (SESAME_ISSUER; default http://localhost:<port>/).")
    var issuer: String?

    @Flag(
        name: .customLong("no-migrate"),
        help: "Refuse to start unless the schema is already this version's (run `sesame admin migrate up` first).")
    var noMigrate = false

    func run() async throws {
        let started = ContinuousClock.now
        MallocTuning.apply()
        LocalTimeZone.pin()
        var flags = storage.flags
        flags["port"] = port.map(String.init)
        flags["host"] = host
        flags["issuer"] = issuer
        let local = try await CLIConfiguration.load(flags: flags)
        if local.logFormat == "json" {
            LoggingSystem.bootstrap(JSONLogHandler.init(label:))
        } else {
            LoggingSystem.bootstrap { label in TextLogHandler(label: label) }
        }
        ServerMetrics.bootstrap()
        var logger = Logger(label: "sesame")
        logger.logLevel = Logger.Level(rawValue: local.logLevel) ?? .info
        let environment = ProcessInfo.processInfo.environment
        let runtime = try await CLIConfiguration.reporting {
            try await SesameRuntime.start(
                local,
                withStored: {
                    try await ServerConfiguration.load(flags: flags, environment: environment, stored: $0)
                }, migrate: !noMigrate, logger: logger)
        }
        let banner = try await Banner.text(runtime)
        let app = buildApplication(runtime) { boundPort in
            let elapsed = ContinuousClock.now - started
            let text = banner(boundPort) + "\nready in \(elapsed.milliseconds) ms\n"
            // Written unbuffered: scripts wait for this line to know the server is up.
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        try await runUntilStopped(app, runtime: runtime)
        try await runtime.shutdown()
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}

/// What `serve` prints on start: enough to make the first login with curl.
enum Banner {
    /// Where data lives, without the password of a PostgreSQL URL.
    static func database(_ configuration: ServerConfiguration) -> String {
        guard let url = configuration.databaseURL, var components = URLComponents(string: url) else {
            return "\(configuration.sqlitePath) (SQLite)"
        }
        if components.password != nil { components.password = "****" }
        return "\(components.string ?? "postgres") (PostgreSQL)"
    }

    /// The banner for the port the server will have bound, with the default application read
    /// now. (A `{port}` replaced through Foundation's `replacingOccurrences` cost 2 % of the
    /// start in the run-time type lookups of its first call.)
    static func text(_ runtime: SesameRuntime) async throws -> @Sendable (Int) -> String {
        let configuration = runtime.configuration
        let app = try await runtime.storage.listApplications().first(where: \.isDefault)
        let email = provider(configuration.email.provider, configuration, console: "console outbox (this log; `sesame outbox`)")
        let sms = provider(configuration.sms.provider, configuration, console: "console outbox")
        let (host, issuer, database) = (configuration.host, configuration.settings.issuer, Banner.database(configuration))
        let clientID = app?.clientID ?? "-"
        return { port in
            """
            Sesame is listening on \(host):\(port)
              issuer:          \(issuer)
              database:        \(database)
              default app:     client_id \(clientID) (native, public: no secret needed)
              email codes:     \(email)
              sms codes:       \(sms)
            """
        }
    }
}

extension Banner {
    /// A channel's provider, or what happens to its codes without one.
    static func provider(_ name: String, _ configuration: ServerConfiguration, console: String) -> String {
        guard name == "console" else { return name }
        guard let refusal = configuration.consoleDeliveryRefusal else { return console }
        return configuration.allowConsoleDelivery
            ? console + ", CODES ARE LOGGED although \(refusal): allowed by allow_console_delivery"
            : "none: refused (no provider, and codes are not logged because \(refusal); "
                + "configure a provider, or set allow_console_delivery)"
    }
}

/// Loads configuration for a command, printing every problem and exiting 78 (EX_CONFIG).
enum CLIConfiguration {
    static func load(flags: [String: String]) async throws -> ServerConfiguration {
        try await reporting { try await ServerConfiguration.load(flags: flags, environment: ProcessInfo.processInfo.environment) }
    }

    /// Runs `load`, printing a ``ConfigurationError``'s problems (or why the schema is not
    /// this version's) and exiting 78: restarting cannot help, the operator must act.
    static func reporting<T>(_ load: () async throws -> T) async throws -> T {
        do {
            return try await load()
        } catch let error as ConfigurationError {
            printError(error.description)
            throw ExitCode(78)
        } catch let error as SchemaVersionError {
            printError("sesame: \(error.description)")
            throw ExitCode(78)
        }
    }
}
