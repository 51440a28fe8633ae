import Foundation
import Logging
import SesameCore
import SesameStorageSQL

/// Where the master key that seals the database's secrets comes from, in order: the
/// `master_key` setting (`SESAME_MASTER_KEY`), the systemd credential `sesame-master-key`
/// (`LoadCredential=` puts it in `$CREDENTIALS_DIRECTORY`), the file `master_key_file` names
/// (`SESAME_MASTER_KEY_FILE`), and for SQLite a `master.key` file beside the database.
///
/// A first start on SQLite with none of these generates that file, so `sesame serve` still
/// needs no setup; it says so, since a key beside the database protects a copy of the
/// database file alone, not a copy of the whole directory.
enum MasterKeySource {
    /// The name of the systemd credential and of the generated file.
    static let credentialName = "sesame-master-key"
    static let generatedFileName = "master.key"

    /// The configured master key, or nil when none is given.
    /// - Throws: ``ConfigurationError`` for a key that cannot be read.
    static func configured(_ configuration: ServerConfiguration, environment: [String: String]) throws -> MasterKey? {
        if let value = configuration.masterKey {
            return try read(value, from: "master_key (SESAME_MASTER_KEY)")
        }
        // The credential before the file: the service's dynamic user cannot read the file the
        // credential was loaded from, which root's commands name with master_key_file.
        if let directory = environment["CREDENTIALS_DIRECTORY"] {
            let path = URL(fileURLWithPath: directory).appendingPathComponent(credentialName).path
            if FileManager.default.fileExists(atPath: path) {
                return try readFile(path, from: "the systemd credential \(credentialName)")
            }
        }
        if let path = configuration.masterKeyFile {
            return try readFile(path, from: "master_key_file (SESAME_MASTER_KEY_FILE)")
        }
        guard configuration.databaseURL == nil else { return nil }
        let beside = besideDatabase(configuration)
        return FileManager.default.fileExists(atPath: beside) ? try readFile(beside, from: beside) : nil
    }

    /// Opens `storage`'s secrets with the configured key. With `generate`, an SQLite database
    /// that is not sealed yet gets a new key file beside it and is sealed under it.
    /// - Throws: ``ConfigurationError`` naming what to give when the key is missing or wrong.
    static func unseal(
        _ storage: SQLStorage, _ configuration: ServerConfiguration, generate: Bool, random: any RandomSource,
        logger: Logger
    ) async throws {
        var key = try configured(configuration, environment: ProcessInfo.processInfo.environment)
        if key == nil, generate, configuration.databaseURL == nil, try await storage.sealingState() == .unsealed {
            key = try generateFile(besideDatabase(configuration), random: random, logger: logger)
        }
        if try await reporting({ try await storage.unseal(with: key, random: random) }) == .unsealed, generate {
            logger.warning(
                "The database's signing keys and secrets are not sealed: give a master key with SESAME_MASTER_KEY_FILE")
        }
    }

    /// Runs `body`, turning a ``SealError`` into the ``ConfigurationError`` commands report
    /// (status 78 for `serve`): a missing or wrong key is the operator's to fix.
    static func reporting<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SealError {
            throw ConfigurationError(problems: ["\(error)"])
        }
    }

    static func besideDatabase(_ configuration: ServerConfiguration) -> String {
        URL(fileURLWithPath: configuration.sqlitePath).deletingLastPathComponent().appendingPathComponent(
            generatedFileName
        ).path
    }

    /// Rewraps the database's data key from the configured master key to the one in
    /// `newKeyFile`. A key kept beside an SQLite database is replaced in its file, so the next
    /// start finds the new one; a key given elsewhere is the operator's to replace.
    /// - Returns: the old and new key ids, and whether the key file beside the database was replaced.
    static func rotate(
        _ storage: SQLStorage, _ configuration: ServerConfiguration, newKeyFile: String, random: any RandomSource
    ) async throws -> (old: String, new: String, replacedFile: String?) {
        let environment = ProcessInfo.processInfo.environment
        guard let old = try configured(configuration, environment: environment) else {
            throw ConfigurationError(problems: [
                "no master key is configured: give the current one with SESAME_MASTER_KEY_FILE (an unsealed database "
                    + "is sealed by starting `sesame serve` with a key)"
            ])
        }
        let new = try readFile(newKeyFile, from: "--new-key-file")
        try await reporting { try await storage.rotateMasterKey(from: old, to: new, random: random) }
        let beside = besideDatabase(configuration)
        let keptBeside =
            configuration.databaseURL == nil && configuration.masterKey == nil && configuration.masterKeyFile == nil
            && environment["CREDENTIALS_DIRECTORY"] == nil && FileManager.default.fileExists(atPath: beside)
        guard keptBeside else { return (old.id, new.id, nil) }
        let contents = try Data(contentsOf: URL(fileURLWithPath: newKeyFile))
        try contents.write(to: URL(fileURLWithPath: beside), options: .atomic)
        _ = chmod(beside, mode_t(DataDirectory.fileMode))
        return (old.id, new.id, beside)
    }

    private static func generateFile(_ path: String, random: any RandomSource, logger: Logger) throws -> MasterKey {
        let (key, encoded) = MasterKey.generate(random: random)
        let created = FileManager.default.createFile(
            atPath: path, contents: Data((encoded + "\n").utf8),
            attributes: [.posixPermissions: NSNumber(value: DataDirectory.fileMode)])
        guard created else { throw ConfigurationError(problems: ["cannot write a new master key to \(path)"]) }
        logger.notice(
            """
            Generated a master key in \(path): it seals the signing keys and secrets in the database. \
            Keep a copy of it apart from the database's backups (a backup cannot be used without it), \
            or give your own with SESAME_MASTER_KEY_FILE.
            """)
        return key
    }

    private static func readFile(_ path: String, from source: String) throws -> MasterKey {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(problems: ["\(source): cannot read the master key file \(path)"])
        }
        return try read(text, from: source)
    }

    private static func read(_ text: String, from source: String) throws -> MasterKey {
        guard let key = MasterKey(encoded: text) else {
            throw ConfigurationError(problems: [
                "\(source): a master key is 32 random bytes in base64 or hex (make one with `openssl rand -base64 32`)"
            ])
        }
        return key
    }
}
