import ArgumentParser
import Foundation
import SesameCore
import SesameServer

/// `sesame admin keys`: the RS256 signing keys every instance shares.
///
/// ```
/// $ sesame admin keys rotate                 # publish a new key; it signs in 10 minutes
/// $ sesame admin keys list
/// $ sesame admin keys retire <old kid>       # once tokens it signed have expired
/// $ sesame admin keys rotate-master --new-key-file new.key
/// $ sesame admin keys rotate-hmac            # a new HMAC key; it hashes in 10 minutes
/// ```
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Signing keys: list, rotate, retire; the HMAC key; the master key that seals them.",
        subcommands: [List.self, Rotate.self, Retire.self, RotateMaster.self, RotateHMAC.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List signing keys and their state.")
        @OptionGroup var storage: StorageOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let keys = try await withStorage(storage) { try await SigningKeyRotation(storage: $0, clock: SystemClock()).list() }
            if json { return try printJSON(keys.map(KeyOutput.init)) }
            for key in keys.map(KeyOutput.init) {
                print(
                    "\(key.kid)  \(key.state.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))  active from \(key.activeFrom)"
                )
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Publish a new signing key that starts signing after a delay.",
            discussion: """
                Every instance reloads the keys every signing_keys.refresh_interval (60 s) and relying \
                parties cache the JWKS, so the new key signs only after --activate-after seconds. The \
                key it replaces keeps verifying until you retire it.
                """)
        @OptionGroup var storage: StorageOptions
        @Option(help: "Seconds until the new key signs.") var activateAfter: Int = 600
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let delay = TimeInterval(activateAfter)
            let status = try await withStorage(storage) {
                try await SigningKeyRotation(storage: $0, clock: SystemClock()).rotate(activateAfter: delay)
            }
            let output = KeyOutput(status)
            if json { return try printJSON(output) }
            print("kid:         \(output.kid)\nactive from: \(output.activeFrom)")
            if activateAfter < 60 {
                print("Instances may sign with it before others publish it; prefer at least the refresh interval.")
            }
        }
    }

    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retire",
            abstract: "Withdraw a key: it leaves the JWKS and tokens it signed stop verifying.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The key's kid (one that begins with \"-\" goes after \"--\").") var kid: String

        func run() async throws {
            try await withStorage(storage) { try await SigningKeyRotation(storage: $0, clock: SystemClock()).retire(kid: kid) }
            print("retired \(kid)")
        }
    }
}

extension KeysCommand {
    struct RotateMaster: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-master",
            abstract: "Seal the database's secrets under a new master key.",
            discussion: """
                The data key that seals the signing keys, HMAC keys, client secrets and stored settings is \
                rewrapped under the new key; nothing else changes, so running instances keep working. Give \
                the current key as serve gets it (SESAME_MASTER_KEY_FILE, …). A key file beside an SQLite \
                database is replaced; a key given elsewhere must be replaced there before instances restart. \
                Make a key with `openssl rand -base64 32 > new.key`.
                """)
        @OptionGroup var storage: StorageOptions
        @Option(help: "A file holding the new master key (32 bytes, base64 or hex).") var newKeyFile: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let configuration = try await CLIConfiguration.load(flags: storage.flags)
            let rotated = try await SesameRuntime.rotateMasterKey(configuration, newKeyFile: newKeyFile, logger: .command)
            if json {
                let output: [String: String?] = [
                    "old_master_key": rotated.old, "master_key": rotated.new, "key_file": rotated.replacedFile,
                ]
                return try printJSON(output)
            }
            print("The secrets are sealed under master key \(rotated.new) (was \(rotated.old)).")
            if let file = rotated.replacedFile {
                print("\(file) now holds the new key.")
            } else {
                print("Give the instances the new key before they restart; the old one no longer opens the database.")
            }
        }
    }
}

extension KeysCommand {
    struct RotateHMAC: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-hmac",
            abstract: "Add a new HMAC key that starts hashing after a delay.",
            discussion: """
                Codes, sessions, refresh tokens and management tokens are stored as HMACs. The new key is \
                known to every instance within signing_keys.refresh_interval (60 s) and hashes new secrets \
                after --activate-after seconds; the older keys keep verifying, so nothing issued before \
                stops working.
                """)
        @OptionGroup var storage: StorageOptions
        @Option(help: "Seconds until the new key hashes.") var activateAfter: Int = 600
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let delay = TimeInterval(activateAfter)
            let (activeFrom, count) = try await withStorage(storage) { storage in
                let rotation = HMACKeyRotation(storage: storage, clock: SystemClock(), random: SystemRandomSource())
                return (try await rotation.rotate(activateAfter: delay), try await rotation.list().count)
            }
            let stamp = ISO8601.string(activeFrom)
            if json { return try printJSON(HMACRotationOutput(activeFrom: stamp, keys: count)) }
            print("A new HMAC key hashes from \(stamp); \(count) keys verify.")
        }
    }
}

private struct HMACRotationOutput: Encodable {
    var activeFrom: String
    /// How many keys verify, the new one included.
    var keys: Int

    private enum CodingKeys: String, CodingKey {
        case activeFrom = "active_from", keys
    }
}

private struct KeyOutput: Encodable {
    var kid: String
    var state: SigningKeyRotation.State
    var createdAt: String
    var activeFrom: String
    var retiredAt: String?

    init(_ status: SigningKeyRotation.Status) {
        kid = status.record.kid
        state = status.state
        createdAt = ISO8601.string(status.record.createdAt)
        activeFrom = ISO8601.string(status.record.activeFrom)
        retiredAt = status.record.retiredAt.map(ISO8601.string)
    }

    enum CodingKeys: String, CodingKey {
        case kid, state, createdAt = "created_at", activeFrom = "active_from", retiredAt = "retired_at"
    }
}
