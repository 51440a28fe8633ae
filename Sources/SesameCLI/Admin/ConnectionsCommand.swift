import ArgumentParser
import SesameCore
import SesameStorageSQL

struct ConnectionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connections", abstract: "Passwordless connections (email, sms).",
        subcommands: [List.self, Update.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List connections and their code policy.")
        @OptionGroup var storage: StorageOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let connections = try await withStorage(storage) { try await $0.listConnections() }
            if json { return try printJSON(connections.map(ConnectionBody.init)) }
            for c in connections {
                print(
                    "\(c.name)  \(c.enabled ? "enabled" : "disabled")  code \(c.codeLength) digits, \(c.codeLifetime) s, "
                        + "\(c.maxAttempts) attempts; link \(c.linkLifetime) s\(c.disableSignup ? "; signup disabled" : "")")
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "update", abstract: "Change a connection's policy.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "email or sms.") var name: String
        @Option var codeLength: Int?
        @Option(help: "Seconds a code stays valid.") var codeLifetime: Int?
        @Option(help: "Failed attempts before a code dies.") var maxAttempts: Int?
        @Option(help: "Seconds a magic link stays valid.") var linkLifetime: Int?
        @Option(help: "true or false.") var disableSignup: Bool?
        @Option(help: "true or false.") var enabled: Bool?
        @OptionGroup var passkeys: PasskeyPolicyOptions

        func run() async throws {
            var override = ConnectionOverride(name: name)
            (override.codeLength, override.codeLifetime, override.maxAttempts) = (codeLength, codeLifetime, maxAttempts)
            (override.linkLifetime, override.disableSignup, override.enabled) = (linkLifetime, disableSignup, enabled)
            let change = override
            let passkeys = passkeys
            try await withStorage(storage) { store in
                guard let stored = try await store.connection(name: change.name) else {
                    throw CommandFailure("no connection \(change.name)")
                }
                var updated = change.apply(to: stored)
                try passkeys.apply(to: &updated.passkeyPolicy)
                let problems = updated.problems() + updated.passkeyPolicy.problems()
                guard problems.isEmpty else { throw CommandFailure(problems.joined(separator: "; ")) }
                try await store.saveConnection(updated)
            }
            print("updated \(name)")
        }
    }
}

/// A connection as `--json` prints it.
struct ConnectionBody: Encodable {
    let name: String, strategy: String, enabled: Bool, codeLength: Int, codeLifetime: Int, maxAttempts: Int
    let linkLifetime: Int, disableSignup: Bool

    init(_ c: Connection) {
        (name, strategy, enabled) = (c.name, c.strategy.rawValue, c.enabled)
        (codeLength, codeLifetime, maxAttempts) = (c.codeLength, c.codeLifetime, c.maxAttempts)
        (linkLifetime, disableSignup) = (c.linkLifetime, c.disableSignup)
    }

    enum CodingKeys: String, CodingKey {
        case name, strategy, enabled, codeLength = "code_length", codeLifetime = "code_lifetime"
        case maxAttempts = "max_attempts", linkLifetime = "link_lifetime", disableSignup = "disable_signup"
    }
}
