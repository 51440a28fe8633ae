import ArgumentParser
import Foundation
import SesameCore
import SesameStorageSQL

/// `sesame admin tokens`: management tokens for the `/api/v2` endpoints (users, clients,
/// logs, device credentials), each with the scopes it may use.
///
/// ```
/// $ sesame admin tokens create --name ci --scope read:device_credentials --expires-in 30d
/// token: sadm_…   (shown once: only its HMAC is stored)
/// $ curl -H "Authorization: Bearer sadm_…" localhost:3000/api/v2/device-credentials?user_id=email%7C…
/// ```
struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens", abstract: "Management tokens for /api/v2 (Authorization: Bearer sadm_…).",
        subcommands: [Create.self, List.self, Delete.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a token and print it once.")
        @OptionGroup var storage: StorageOptions
        @Option(help: "What the token is for.") var name: String
        @Option(
            parsing: .upToNextOption,
            help:
                "What it may do (read:users update:users delete:users read:clients create:clients update:clients delete:clients read:logs read:device_credentials create:device_credentials delete:device_credentials)."
        )
        var scope: [String] = []
        @Flag(help: "Give it every scope, now and to come (instead of --scope).") var allScopes = false
        @Option(help: "Make it stop working after this long: seconds, or a number with s, m, h or d (30d, 12h).")
        var expiresIn: String?
        @Flag(help: "Print JSON.") var json = false

        func validate() throws {
            // A token with every power was the silent default; now it has to be asked for.
            guard scope.isEmpty == allScopes else {
                throw ValidationError(
                    allScopes
                        ? "give either --scope or --all-scopes, not both"
                        : "say what the token may do: --scope read:users … (see --help), or --all-scopes for everything")
            }
            if let expiresIn, Self.seconds(expiresIn) == nil {
                throw ValidationError("--expires-in must be a positive number of seconds, or like 30d, 12h, 15m")
            }
        }

        /// `3600`, `3600s`, `60m`, `12h`, `30d` in seconds; nil when it is none of these or not positive.
        static func seconds(_ text: String) -> TimeInterval? {
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
            let (number, unit) = text.last.flatMap { units[$0] }.map { (text.dropLast(), $0) } ?? (Substring(text), 1)
            guard let value = Int(number), value > 0 else { return nil }
            return Double(value) * unit
        }

        func run() async throws {
            let (name, scopes) = (name, scope.flatMap { $0.split(separator: ",").map(String.init) })
            let lifetime = expiresIn.flatMap(Self.seconds)
            let (token, record) = try await withStorage(storage) { store in
                let random = SystemRandomSource()
                // The first start of `serve` makes the HMAC key; making it here instead is the same idempotent step.
                let keys = try await Bootstrap(storage: store, clock: SystemClock(), random: random).hmacKeys()
                return try await AdminTokens(storage: store, hasher: SecretHasher(ring: HMACKeys(keys)), random: random)
                    .create(name: name, scopes: scopes, lifetime: lifetime, at: Date())
            }
            if json { return try printJSON(AdminTokenOutput(record, token: token)) }
            print("id:    \(record.id)\nname:  \(record.name)\ntoken: \(token)")
            print("scopes:  \(record.scopes.isEmpty ? "all" : record.scopes.joined(separator: " "))")
            print("expires: \(record.expiresAt.map(ISO8601.string) ?? "never (until deleted)")")
            print("The token is shown only now; Sesame keeps only its HMAC.")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List tokens (never the tokens themselves).")
        @OptionGroup var storage: StorageOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let tokens = try await withStorage(storage) { try await $0.listAdminTokens() }
            if json { return try printJSON(tokens.map { AdminTokenOutput($0, token: nil) }) }
            for token in tokens {
                let expiry = token.expiresAt.map { "  expires \(ISO8601.string($0))" } ?? ""
                print("\(token.id)  \(ISO8601.string(token.createdAt))  \(token.name)\(expiry)")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Revoke a token at once.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The token id (adm_…).") var id: String

        func run() async throws {
            try await withStorage(storage) { try await $0.deleteAdminToken(id: id) }
            print("deleted \(id)")
        }
    }
}

private struct AdminTokenOutput: Encodable {
    var id: String
    var name: String
    var token: String?
    var createdAt: String
    /// Empty: every scope.
    var scopes: [String]
    /// nil: never.
    var expiresAt: String?

    init(_ record: AdminToken, token: String?) {
        (id, name, self.token, createdAt) = (record.id, record.name, token, ISO8601.string(record.createdAt))
        (scopes, expiresAt) = (record.scopes, record.expiresAt.map(ISO8601.string))
    }

    enum CodingKeys: String, CodingKey { case id, name, token, scopes, createdAt = "created_at", expiresAt = "expires_at" }
}
