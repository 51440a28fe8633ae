import Foundation
import SesameClientCore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files that hold sessions and keys, and the directory they live in.
@Suite("SesameClient: private files")
struct PrivateFileTests {
    static func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sesame-private-\(UUID().uuidString)").path
    }

    static func mode(_ path: String) throws -> Int {
        try #require((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    /// Attack (token theft from disk): `~/.config/sesame` already existed 0755 (made by an older
    /// version, or by hand), and was left so: other users could list it and, with a looser
    /// file mode anywhere in its history, read or replace the session.
    @Test("an open config directory of ours is closed to 0700 when a secret is written in it")
    func openConfigDirectoryLeftOpen() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        chmod(directory, 0o755)
        try PrivateFile.write(Data("secret".utf8), to: directory + "/session.json")
        #expect(try Self.mode(directory) == 0o700)
        #expect(try Self.mode(directory + "/session.json") == 0o600)
    }

    /// Attack (planted directory): another user made the config directory open to all; writing
    /// our session there hands it to them.
    @Test("an open directory that belongs to another user is refused")
    func openDirectoryOfAnotherUser() throws {
        guard geteuid() == 0 else { return }  // Only root can give a directory away.
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o777)
        chown(directory, 65534, 65534)
        #expect(throws: PrivateFile.Refusal.self) { try PrivateFile.write(Data("secret".utf8), to: directory + "/key.json") }
        #expect(!FileManager.default.fileExists(atPath: directory + "/key.json"))
    }

    /// Attack (planted link): a symbolic link left where the secret goes must not carry the
    /// secret to the file it points at; the write replaces the link.
    @Test("a new file is 0600, replaces the old one and never writes through a planted link")
    func replacesWithoutFollowingLinks() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/session.json"
        try PrivateFile.write(Data("one".utf8), to: path)
        try PrivateFile.write(Data("two".utf8), to: path)
        #expect(FileManager.default.contents(atPath: path) == Data("two".utf8))
        let elsewhere = directory + "/elsewhere"
        _ = FileManager.default.createFile(atPath: elsewhere, contents: Data("theirs".utf8))
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: elsewhere)
        try PrivateFile.write(Data("three".utf8), to: path)
        #expect(FileManager.default.contents(atPath: elsewhere) == Data("theirs".utf8))
        #expect(FileManager.default.contents(atPath: path) == Data("three".utf8))
        #expect(try Self.mode(path) == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }
}
