import ArgumentParser
import Foundation
import SesameCore
import SesameServer
import SesameStorageSQL

/// `sesame admin apis`: the APIs an `audience` may name (Auth0's resource servers).
struct ApisCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apis", abstract: "APIs that get RFC 9068 access tokens: their permissions and token settings.",
        subcommands: [List.self, Create.self, Show.self, Update.self, Delete.self])

    /// The settings create and update take; what is left out stays as it is.
    struct Settings: ParsableArguments {
        @Option(help: "The API's display name.") var name: String?
        @Option(
            parsing: .upToNextOption,
            help: "The permissions it defines, each value or value=description (replaces the list).")
        var scope: [String] = []
        @Option(help: "Seconds an access token lives (1 to 2592000).") var tokenLifetime: Int?
        @Option(help: "Seconds an access token of a single-page application lives.") var tokenLifetimeForWeb: Int?
        @Option(help: "true: tokens carry only the permissions the user's roles and own permissions grant.")
        var enforcePolicies: Bool?
        @Option(help: "access_token, or access_token_authz to add a permissions claim.") var tokenDialect: String?
        @Option(help: "true: a login for the API may get a refresh token.") var allowOfflineAccess: Bool?

        var changes: ResourceServerChanges {
            get throws {
                let dialect = try tokenDialect.map { value in
                    guard let dialect = TokenDialect(rawValue: value) else {
                        throw ValidationError("--token-dialect must be access_token or access_token_authz.")
                    }
                    return dialect
                }
                let scopes: [ResourceServerScope]? =
                    scope.isEmpty
                    ? nil
                    : scope.map { item in
                        let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                        return ResourceServerScope(value: parts[0], description: parts.count > 1 ? parts[1] : nil)
                    }
                return ResourceServerChanges(
                    name: name, scopes: scopes, tokenLifetime: tokenLifetime, tokenLifetimeForWeb: tokenLifetimeForWeb,
                    enforcePolicies: enforcePolicies, tokenDialect: dialect, allowOfflineAccess: allowOfflineAccess)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the APIs, oldest first.")
        @OptionGroup var storage: StorageOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let apis = try await withAPIs(storage) { try await $0.list() }
            if json { return try printJSON(apis.map { ResourceServerBody($0) }) }
            for api in apis {
                print("\(api.id)  \(api.identifier)  \(api.name)  scopes \(api.scopes.map(\.value).joined(separator: ","))")
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Add an API.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "Its identifier: the audience clients ask for (https://api.example.com).") var identifier: String
        @OptionGroup var settings: Settings
        @Flag(help: "Print the API as JSON.") var json = false

        func run() async throws {
            let (identifier, changes) = (identifier, try settings.changes)
            let api = try await withAPIs(storage) { try await $0.create(identifier: identifier, changes) }
            try show(api, json: json)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show an API as JSON.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The API's id or identifier.") var id: String
        @Flag(help: "Print JSON (as without it).") var json = false

        func run() async throws {
            let id = id
            let body = try await withAPIs(storage) { apis in
                let api = try await apis.api(id)
                return ResourceServerBody(api, isSystem: apis.isSystem(api))
            }
            try printJSON(body)
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "update", abstract: "Change an API's settings.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The API's id or identifier.") var id: String
        @OptionGroup var settings: Settings
        @Flag(help: "Print the API as JSON.") var json = false

        func run() async throws {
            let (id, changes) = (id, try settings.changes)
            try show(try await withAPIs(storage) { try await $0.update(id, changes) }, json: json)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete an API with the permissions given on it and its client grants.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The API's id or identifier.") var id: String

        func run() async throws {
            let id = id
            try await withAPIs(storage) { try await $0.delete(id) }
            print("api \(id) deleted")
        }
    }
}

private func show(_ api: ResourceServer, json: Bool) throws {
    if json { return try printJSON(ResourceServerBody(api)) }
    print("api \(api.id)  \(api.identifier)  \(api.name)")
}

/// Runs `body` with the APIs' service, which needs the issuer to tell the Management API apart.
@discardableResult
private func withAPIs<T: Sendable>(
    _ storage: StorageOptions, _ body: @escaping @Sendable (ResourceServerAdministration) async throws -> T
) async throws -> T {
    try await withConfiguredService(
        storage,
        make: { configuration, store in
            ResourceServerAdministration(
                storage: store, clock: SystemClock(), random: SystemRandomSource(),
                managementAudience: configuration.settings.issuer + "api/v2/",
                myAccountAudience: configuration.settings.myAccountAudience, logger: .command)
        }, body)
}
