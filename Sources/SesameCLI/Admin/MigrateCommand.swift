import ArgumentParser
import SesameStorageSQL

/// `sesame admin migrate status|up`: the schema's version, and migrating as a step of its own
/// for deployments that start their servers with `serve --no-migrate`.
///
/// ```
/// $ sesame admin migrate status
/// database schema: version 18 (0018_audit_aggregation)
/// this binary:     version 21 (0021_admin_token_expiry)
/// pending:         0021_admin_token_expiry
/// $ sesame admin migrate up
/// ```
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Show the schema's version and apply pending migrations.",
        discussion: """
            `serve` migrates at start unless given --no-migrate; a database migrated by a newer Sesame is \
            refused by both, naming the two versions.
            """,
        subcommands: [Status.self, Up.self])

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "The database's schema version against this binary's; changes nothing.")
        @OptionGroup var storage: StorageOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let status = try await withStorage(storage, migrate: false) { try await $0.schemaStatus() }
            if json { return try printJSON(SchemaStatusOutput(status)) }
            print("database schema: version \(status.databaseVersion)")
            print("this binary:     version \(status.binaryVersion)")
            if !status.pending.isEmpty { print("pending:         \(status.pending.joined(separator: ", "))") }
            if !status.unknown.isEmpty {
                print("unknown:         \(status.unknown.joined(separator: ", ")) (migrated by a newer Sesame)")
            }
            if status.isCurrent { print("up to date") }
        }
    }

    struct Up: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "up", abstract: "Apply every pending migration, each in its own transaction.")
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let (applied, status) = try await withStorage(storage, migrate: false) { store in
                let applied = try await CLIConfiguration.reporting { try await store.migrate() }
                return (applied, try await store.schemaStatus())
            }
            if !applied.isEmpty { print("applied \(applied.joined(separator: ", "))") }
            print("schema version \(status.databaseVersion): up to date")
        }
    }
}

/// `migrate status --json`.
private struct SchemaStatusOutput: Encodable {
    let databaseVersion: Int
    let binaryVersion: Int
    let applied: [String]
    let pending: [String]
    let unknown: [String]

    init(_ status: SchemaStatus) {
        (databaseVersion, binaryVersion) = (status.databaseVersion.number, status.binaryVersion.number)
        (applied, pending, unknown) = (status.applied, status.pending, status.unknown)
    }

    enum CodingKeys: String, CodingKey {
        case applied, pending, unknown
        case databaseVersion = "database_version", binaryVersion = "binary_version"
    }
}
