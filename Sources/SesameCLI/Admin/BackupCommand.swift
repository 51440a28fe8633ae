import ArgumentParser
import SesameServer
import SesameStorageSQL

/// `sesame admin backup FILE`: a consistent copy of the SQLite database, taken while the
/// server runs (SQLite's online backup, not a file copy).
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Copy the SQLite database, consistently, while the server runs.",
        discussion: """
            The copy holds the signing keys, the HMAC secret and client secrets, sealed under the master key \
            (which the copy does not hold: keep the key apart, a restore needs it). It is created readable by \
            this user only; keep it as private as the data directory. On PostgreSQL use pg_dump -Fc.
            """)
    @OptionGroup var storage: StorageOptions
    @Argument(help: "The backup file to create (it must not exist).") var file: String

    func run() async throws {
        let configuration = try await CLIConfiguration.load(flags: storage.flags)
        if storage.verbose { printError("database: \(Banner.database(configuration))") }
        do {
            try DatabaseBackup.backup(configuration, to: file)
        } catch let error as BackupError {
            throw CommandFailure(error.description)
        } catch let error as MissingDatabaseError {
            throw CommandFailure(error.description)
        }
        print("backed up \(configuration.sqlitePath) to \(file)")
    }
}

/// `sesame admin restore FILE`: a backup becomes the database of a data directory that has none.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Make a backup the database of a data directory that has none.",
        discussion: """
            Restore into a new --data-dir, or stop the server and move the old database (with its -wal and \
            -shm files) away first. Then start `sesame serve` there with the same issuer: signed-in users stay \
            signed in.
            """)
    @OptionGroup var storage: StorageOptions
    @Argument(help: "The backup file (from `sesame admin backup`).") var file: String

    func run() async throws {
        let configuration = try await CLIConfiguration.load(flags: storage.flags)
        let status = try await CLIConfiguration.reporting {
            do {
                return try await DatabaseBackup.restore(configuration, from: file)
            } catch let error as BackupError {
                throw CommandFailure(error.description)
            }
        }
        print("restored \(file) to \(configuration.sqlitePath) (schema version \(status.databaseVersion))")
        if !status.pending.isEmpty { print("`sesame serve` will apply \(status.pending.count) migration(s) at start") }
        if case .sealed(let key) = await DatabaseBackup.sealing(of: configuration.sqlitePath) {
            print(
                "Its secrets are sealed under master key \(key): start `sesame serve` with that key "
                    + "(SESAME_MASTER_KEY_FILE, or master.key beside the database)")
        }
    }
}
