import ArgumentParser
import Foundation
import Logging
import SesameServer
import SesameStorageSQL

/// `sesame admin migrate-to-postgres`: moves an SQLite deployment into PostgreSQL, so it can
/// run as several instances.
///
/// ```
/// $ sesame admin migrate-to-postgres --data-dir /var/lib/sesame --to postgres://sesame:…@db:5432/sesame
/// ```
struct MigrateToPostgresCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-to-postgres",
        abstract: "Copy an SQLite deployment into an empty PostgreSQL database.",
        discussion: """
            Stop `sesame serve` on the data directory first: rows written after the copy starts are not \
            carried over. The copy is one PostgreSQL transaction, so a failed copy leaves the target empty, \
            and the SQLite file keeps its data. Afterwards start the instances with SESAME_DATABASE_URL set \
            to the target.
            """)

    @OptionGroup var source: SQLiteSourceOptions

    @Option(help: "The PostgreSQL database to fill, postgres://user:password@host:5432/db; it must be empty.")
    var to: String

    @Option(help: "Rows per INSERT statement.")
    var batchSize = 1000

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let configuration = try await CLIConfiguration.load(flags: source.flags)
        let path = configuration.sqlitePath
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("no SQLite database at \(path)") }
        var target = configuration
        target.databaseURL = to
        let notice = """
            Copying \(path) into \(Banner.database(target)).
            A server still running on the SQLite file must be stopped: what it writes from now on is not copied.

            """
        FileHandle.standardError.write(Data(notice.utf8))
        let tables = try await copy(path, configuration)
        var report = MigrationReport(source: path, target: Banner.database(target), tables: tables)
        report.masterKeyFile = SesameRuntime.masterKeyFile(configuration)
        if json { return try printJSON(report) }
        print(report.text)
    }

    private func copy(_ path: String, _ configuration: ServerConfiguration) async throws -> [DatabaseCopier.Table] {
        let logger = Logger.command
        return try await closing(try await SQLStorage.sqlite(path: path, logger: logger)) { source in
            // Opening migrates the target, which gives it the schema to copy into.
            let target = try await SQLStorage.postgres(
                url: to, maxConnections: 2, timeout: .seconds(configuration.databaseTimeout), logger: logger)
            return try await closing(target) { try await DatabaseCopier(from: source, to: $0, batchSize: batchSize).copy() }
        }
    }
}

/// Where the SQLite deployment to copy lives. Not ``StorageOptions``: there `--database`
/// names a PostgreSQL URL, and here the source is always the SQLite file.
struct SQLiteSourceOptions: ParsableArguments {
    @OptionGroup var deployment: DeploymentOptions

    @Option(help: "The SQLite file to copy (SESAME_DATABASE; default <data-dir>/sesame.sqlite).")
    var database: String?

    /// Flags by configuration key, for ``ServerConfiguration/load(flags:environment:)``.
    var flags: [String: String] {
        var flags = deployment.flags
        flags["database"] = database
        return flags
    }
}

/// What `migrate-to-postgres` prints: rows per table.
private struct MigrationReport: Encodable {
    var source: String
    var target: String
    var tables: [String: Int]
    var total: Int
    /// The key file the copied secrets are sealed under, when the SQLite deployment keeps one.
    var masterKeyFile: String?

    private enum CodingKeys: String, CodingKey {
        case source, target, tables, total
        case masterKeyFile = "master_key_file"
    }

    init(source: String, target: String, tables: [DatabaseCopier.Table]) {
        self.source = source
        self.target = target
        self.tables = Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0.rows) })
        total = tables.reduce(0) { $0 + $1.rows }
    }

    var text: String {
        let width = (tables.keys.map(\.count).max() ?? 0) + 2
        let lines = tables.keys.sorted().map { name in
            name.padding(toLength: width, withPad: " ", startingAt: 0) + String(tables[name] ?? 0)
        }
        return """
            Copied \(source) (SQLite) into \(target):
            \(lines.map { "  " + $0 }.joined(separator: "\n"))
              \("total".padding(toLength: width, withPad: " ", startingAt: 0))\(total) rows in \(tables.count) tables
            Start the instances with SESAME_DATABASE_URL set to the target. The SQLite file keeps its data: keep it as a backup.
            """ + sealingNote
    }

    /// The copied secrets stay sealed, so every PostgreSQL instance needs the same key.
    private var sealingNote: String {
        masterKeyFile.map {
            "\nThe secrets stay sealed under the master key in \($0): give every instance that key "
                + "(SESAME_MASTER_KEY_FILE), and keep it apart from the database's backups."
        } ?? ""
    }
}
