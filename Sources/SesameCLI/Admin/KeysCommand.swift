import ArgumentParser
import Foundation
import SesameCore

/// `sesame admin keys`: the RS256 signing keys every instance shares.
///
/// ```
/// $ sesame admin keys rotate                 # publish a new key; it signs in 10 minutes
/// $ sesame admin keys list
/// $ sesame admin keys retire <old kid>       # once tokens it signed have expired
/// ```
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Signing keys: list, rotate, retire.",
        subcommands: [List.self, Rotate.self, Retire.self])

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
