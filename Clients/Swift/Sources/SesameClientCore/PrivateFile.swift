public import Foundation

#if canImport(Glibc)
    import Glibc
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    import Darwin
    private let systemWrite = Darwin.write
#endif

/// Files that hold secrets (sessions, device keys, software passkeys): written 0600 in a 0700
/// directory, to a temporary file renamed into place, so they are never readable by others
/// and a crash never leaves half a file.
///
/// The temporary file is created 0600 with `O_CREAT|O_EXCL|O_NOFOLLOW`: it is never, even for
/// an instant, readable by others (creating it first and `chmod`ing it after left a window),
/// and a name planted in the directory (a symbolic link to a file of the attacker's choosing)
/// makes the write fail instead of being followed.
public enum PrivateFile {
    /// Why a secret file was not written.
    public struct Refusal: LocalizedError, CustomStringConvertible {
        public var description: String
        public var errorDescription: String? { description }
    }

    /// Replaces the file at `path` with `data`.
    public static func write(_ data: Data, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try securedDirectory(directory.isEmpty ? "." : directory)
        let temporary = try createExclusive(near: path)
        do {
            try writeAll(data, to: temporary.descriptor)
            guard fsync(temporary.descriptor) == 0 else { throw posixError(path: temporary.path) }
            close(temporary.descriptor)
        } catch {
            close(temporary.descriptor)
            unlink(temporary.path)
            throw error
        }
        guard rename(temporary.path, path) == 0 else {
            let error = posixError(path: path)
            unlink(temporary.path)
            throw error
        }
    }

    /// Creates `directory` 0700 when missing; closes an existing one that is ours and open to
    /// others, and refuses one that belongs to someone else and is open (they, or anyone who
    /// may write there, could read or swap our files).
    static func securedDirectory(_ directory: String) throws {
        var info = stat()
        if stat(directory, &info) != 0 {
            let parent = (directory as NSString).deletingLastPathComponent
            if !parent.isEmpty, parent != directory {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            }
            guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw posixError(path: directory) }
            guard stat(directory, &info) == 0 else { throw posixError(path: directory) }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw Refusal(description: "\(directory) is not a directory")
        }
        guard info.st_mode & 0o077 != 0 else { return }
        guard info.st_uid == geteuid() else {
            throw Refusal(
                description: "\(directory) belongs to another user and is open to others: "
                    + "secrets are not written there (choose a directory of your own)")
        }
        guard chmod(directory, 0o700) == 0 else { throw posixError(path: directory) }
    }

    /// A new file beside `path`, created 0600 and exclusively, never through a link.
    private static func createExclusive(near path: String) throws -> (path: String, descriptor: Int32) {
        for _ in 0..<8 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let temporary = "\(path).\(suffix).tmp"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if descriptor >= 0 { return (temporary, descriptor) }
            guard errno == EEXIST else { throw posixError(path: temporary) }
        }
        throw Refusal(description: "could not create a temporary file beside \(path)")
    }

    private static func writeAll(_ data: Data, to descriptor: Int32) throws {
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw posixError(path: "secret file")
                }
                offset += written
            }
        }
    }

    private static func posixError(path: String) -> Refusal {
        Refusal(description: "\(path): \(String(cString: strerror(errno)))")
    }
}
