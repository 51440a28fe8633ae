import Foundation
import Logging

/// The SQLite data directory holds the HMAC secret, the signing keys and client secrets, so
/// it is private to the user Sesame runs as: the directory 0700, the database 0600. SQLite
/// creates its `-wal` and `-shm` files with the database file's mode, so creating the
/// database 0600 before SQLite opens it covers those too.
enum DataDirectory {
    static let directoryMode: Int16 = 0o700
    static let fileMode: Int16 = 0o600

    /// Creates what is missing with private modes, and warns about what exists and is open
    /// to other users (it is not changed behind the operator's back).
    static func prepare(directory: String?, database: String, logger: Logger) throws {
        let files = FileManager.default
        if let directory {
            if files.fileExists(atPath: directory) {
                warnIfOpen(directory, expected: directoryMode, logger: logger)
            } else {
                try files.createDirectory(
                    atPath: directory, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: NSNumber(value: directoryMode)])
            }
        }
        for path in [database, database + "-wal", database + "-shm"] where files.fileExists(atPath: path) {
            warnIfOpen(path, expected: fileMode, logger: logger)
        }
        if !files.fileExists(atPath: database) {
            guard files.createFile(atPath: database, contents: nil, attributes: [.posixPermissions: NSNumber(value: fileMode)])
            else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: database]) }
        }
    }

    /// The permission bits of `path`, or nil when they cannot be read.
    /// The mode of what `path` names, through symbolic links: systemd's `StateDirectory` with
    /// `DynamicUser` is a link (mode 777) to a private directory, and the link's own mode means
    /// nothing.
    static func mode(_ path: String) -> Int16? {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return (try? FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? NSNumber)?.int16Value
    }

    private static func warnIfOpen(_ path: String, expected: Int16, logger: Logger) {
        guard let mode = mode(path), mode & 0o077 != 0 else { return }
        let message =
            "\(path) is open to other users (mode \(String(mode, radix: 8))): it holds signing keys and "
            + "secrets; run chmod \(String(expected, radix: 8)) \(path)"
        logger.warning("\(message)")
    }
}
