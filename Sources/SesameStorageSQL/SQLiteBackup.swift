import Foundation
import VaporCSQLite

/// Consistent copies of an SQLite database through SQLite's online backup API
/// (`sqlite3_backup_*`): `sesame admin backup` while the server runs, `sesame admin restore`.
/// Not a file copy: a copy of the file (and of its `-wal`) taken while a server writes can
/// hold half a transaction; the backup copies the pages of one read snapshot, and the server
/// keeps reading and writing meanwhile (in WAL mode readers never block the writer).
public enum SQLiteBackup {
    /// Copies the database at `source` into `destination` (created, or replaced page by page).
    /// - Parameter busyTimeout: how long to wait while another connection holds a lock that
    ///   stops the snapshot (a checkpoint); a running server holds none for long.
    /// - Throws: when either file cannot be opened or the copy fails; `destination` is then
    ///   not a usable database.
    public static func copy(from source: String, to destination: String, busyTimeout: Duration = .seconds(30)) throws {
        let from = try open(source, flags: SQLITE_OPEN_READWRITE)
        defer { sqlite_nio_sqlite3_close(from) }
        let to = try open(destination, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        defer { sqlite_nio_sqlite3_close(to) }
        guard let backup = sqlite_nio_sqlite3_backup_init(to, "main", from, "main") else {
            throw SQLiteFailure(sqlite_nio_sqlite3_errcode(to), to)
        }
        let deadline = ContinuousClock.now + busyTimeout
        var step: Int32
        repeat {
            // -1: every page in one step, so the whole copy reads one snapshot.
            step = sqlite_nio_sqlite3_backup_step(backup, -1)
            if step == SQLITE_BUSY || step == SQLITE_LOCKED { sqlite_nio_sqlite3_sleep(20) }
        } while (step == SQLITE_OK || step == SQLITE_BUSY || step == SQLITE_LOCKED) && ContinuousClock.now < deadline
        let finished = sqlite_nio_sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE, finished == SQLITE_OK else {
            throw SQLiteFailure(step == SQLITE_DONE ? finished : step, to)
        }
    }

    private static func open(_ path: String, flags: Int32) throws -> OpaquePointer {
        do {
            return try SQLiteHandle.openConnection(path, flags: flags)
        } catch let failure as SQLiteFailure {
            throw SQLiteFailure(code: failure.code, message: "\(path): \(failure.message)")
        }
    }
}
