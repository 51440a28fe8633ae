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
        let environment = ProcessInfo.processInfo.environment
        let requested = await ServerConfiguration.requestedLogFormat(flags: flags, environment: environment)
        let output = ServeOutput(json: requested == "json")
        do {
            try await serve(environment: environment, output: output, started: started)
        } catch let error where output.json && !(error is ExitCode) {
            // Anything else that stops the start (a database out of reach, say) is one JSON line too.
            output.error("sesame: \(error)")
            throw ExitCode(1)
        }
    }

    /// Starts, listens until SIGTERM or SIGINT, and stops; a busy port is one line and status 1.
    private func serve(environment: [String: String], output: ServeOutput, started: ContinuousClock.Instant)
        async throws
    {
        let runtime = try await start(environment: environment, output: output)
        if let (host, port) = await runtime.configuration.busyListener() {
            try? await runtime.shutdown()
            output.error(ServeOutput.addressInUse(host: host, port: port))
            throw ExitCode(1)
        }
        let banner = try await Banner(runtime)
        let app = buildApplication(runtime) { boundPort in
            output.started(banner, port: boundPort, after: ContinuousClock.now - started)
            // The start is over: its code (configuration, migrations, keys) need not stay resident.
            ResidentCode.releaseStartCode()
        }
        do {
            try await runUntilStopped(app, runtime: runtime)
        } catch  where ServeOutput.isAddressInUse(error) {
            // Taken between the check above and the bind.
            try? await runtime.shutdown()
            output.error(ServeOutput.addressInUse(host: runtime.configuration.host, port: runtime.configuration.port))
            throw ExitCode(1)
        }
        try await runtime.shutdown()
    }

    /// The flags by configuration key.
    private var flags: [String: String] {
        var flags = storage.flags
        flags["port"] = port.map(String.init)
        flags["host"] = host
        flags["issuer"] = issuer
        return flags
    }

    /// Reads the configuration, starts the log in the format it asks for, and starts the
    /// runtime; a refusal is reported through `output` with status 78.
    private func start(environment: [String: String], output: ServeOutput) async throws -> SesameRuntime {
        let flags = flags
        let local = try await CLIConfiguration.reporting(output) {
            try await ServerConfiguration.load(flags: flags, environment: environment)
        }
        if local.logFormat == "json" {
            LoggingSystem.bootstrap(JSONLogHandler.init(label:))
        } else {
            LoggingSystem.bootstrap { label in TextLogHandler(label: label) }
        }
        ServerMetrics.bootstrap()
        var logger = Logger(label: "sesame")
        logger.logLevel = Logger.Level(rawValue: local.logLevel) ?? .info
        return try await CLIConfiguration.reporting(output) {
            try await SesameRuntime.start(
                local,
                withStored: {
                    try await ServerConfiguration.load(flags: flags, environment: environment, stored: $0)
                }, migrate: !noMigrate, logger: logger)
        }
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
