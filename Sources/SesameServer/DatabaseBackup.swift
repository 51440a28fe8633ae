import Foundation
import Logging
public import SesameStorageSQL

/// `sesame admin backup` and `sesame admin restore` for a deployment on SQLite: a consistent
/// copy of the live database (``SQLiteBackup``), and that copy made the database of a data
/// directory that has none. PostgreSQL has its own tools (`pg_dump -Fc`, `pg_restore`).
public enum DatabaseBackup {
    /// Copies the configured database into `file`, a new file private to this user (it holds
    /// the signing keys and secrets), while the server keeps running.
    /// - Throws: ``BackupError`` on PostgreSQL or when `file` exists;
    ///   ``MissingDatabaseError`` when there is no database to copy.
    public static func backup(_ configuration: ServerConfiguration, to file: String) throws {
        let source = try sqlitePath(configuration)
        guard FileManager.default.fileExists(atPath: source) else { throw MissingDatabaseError(path: source) }
        guard !FileManager.default.fileExists(atPath: file) else {
            throw BackupError("\(file) exists: give the backup a new name")
        }
        try createPrivateFile(file)
        do {
            try SQLiteBackup.copy(from: source, to: file)
        } catch {
            try? FileManager.default.removeItem(atPath: file)
            throw BackupError("backup of \(source) failed: \(error)")
        }
    }

    /// Makes `file` (a backup) the configured database, which must not exist yet: the data
    /// directory is created private, the copy checked to be a Sesame database whose schema this
    /// binary knows; `serve` then migrates it if it is older.
    /// - Returns: the restored database's schema against this binary's.
    /// - Throws: ``BackupError`` (PostgreSQL, an existing database, not a Sesame database) or
    ///   ``SchemaVersionError`` (a backup of a newer Sesame); nothing is left behind then.
    public static func restore(_ configuration: ServerConfiguration, from file: String) async throws -> SchemaStatus {
        let target = try sqlitePath(configuration)
        guard FileManager.default.fileExists(atPath: file) else { throw BackupError("no backup at \(file)") }
        guard !FileManager.default.fileExists(atPath: target) else {
            throw BackupError(
                "a database exists at \(target): stop the server and move it away (with its -wal and -shm files), "
                    + "or restore into a new --data-dir")
        }
        try DataDirectory.prepare(
            directory: configuration.databasePath == nil ? configuration.dataDirectory : nil, database: target,
            logger: .init(label: "sesame"))
        do {
            try SQLiteBackup.copy(from: file, to: target)
            return try await check(target)
        } catch {
            for path in [target, target + "-wal", target + "-shm"] { try? FileManager.default.removeItem(atPath: path) }
            throw error
        }
    }

    /// Whether the database at `path` is sealed, and under which master key; nil when it cannot
    /// be told (a schema from before sealing).
    public static func sealing(of path: String) async -> SealingState? {
        guard let storage = try? await SQLStorage.sqlite(path: path, migrate: false) else { return nil }
        let state = try? await storage.sealingState()
        try? await storage.shutdown()
        return state
    }

    /// The restored database's schema; refuses a file that is no Sesame database, or a newer one.
    private static func check(_ path: String) async throws -> SchemaStatus {
        let storage = try await SQLStorage.sqlite(path: path, migrate: false)
        let status = try await storage.schemaStatus()
        try await storage.shutdown()
        guard !status.applied.isEmpty else { throw BackupError("the backup is not a Sesame database (no schema)") }
        if !status.unknown.isEmpty { throw SchemaVersionError.newer(status) }
        return status
    }

    private static func sqlitePath(_ configuration: ServerConfiguration) throws -> String {
        guard configuration.databaseURL == nil else {
            throw BackupError(
                "the database is PostgreSQL: back it up with pg_dump -Fc and restore it with pg_restore (docs/operations.md)")
        }
        return configuration.sqlitePath
    }

    private static func createPrivateFile(_ path: String) throws {
        guard
            FileManager.default.createFile(
                atPath: path, contents: nil, attributes: [.posixPermissions: NSNumber(value: DataDirectory.fileMode)])
        else { throw BackupError("cannot create \(path)") }
    }
}

/// Why a backup or a restore was refused.
public struct BackupError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
