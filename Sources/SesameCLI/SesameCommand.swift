public import ArgumentParser
import SesameServer

/// `sesame`: the server and its operator tools.
public struct SesameCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sesame",
        abstract: "A self-hosted passwordless identity server that speaks Auth0's API and OpenID Connect.",
        version: "sesame \(BuildInfo.description)",
        subcommands: [
            ServeCommand.self, OutboxCommand.self, AdminCommand.self, PasskeyCommand.self, LoginCommand.self,
            WhoamiCommand.self, LogoutCommand.self,
        ])

    public init() {}
}

/// Options every command takes: where the deployment lives.
struct StorageOptions: ParsableArguments {
    @OptionGroup var deployment: DeploymentOptions

    @Option(
        help:
            "PostgreSQL URL, postgres://user:password@host:5432/db (SESAME_DATABASE_URL; default: SQLite in the data directory).")
    var database: String?

    @Flag(help: "Say which database the command uses (on standard error).")
    var verbose = false

    /// Flags by configuration key, for ``ServerConfiguration/load(flags:environment:)``.
    var flags: [String: String] {
        var flags = deployment.flags
        flags["database_url"] = database
        return flags
    }
}

/// The data directory and the configuration file, which every command reads.
struct DeploymentOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Data directory (SESAME_DATA_DIR; default ./sesame-data).")
    var dataDirectory: String?

    @Option(help: "JSON configuration file (SESAME_CONFIG; default <data-dir>/sesame.json when present).")
    var config: String?

    /// Flags by configuration key, for ``ServerConfiguration/load(flags:environment:)``.
    var flags: [String: String] {
        var flags: [String: String] = [:]
        flags["data_dir"] = dataDirectory
        flags["config"] = config
        return flags
    }
}
