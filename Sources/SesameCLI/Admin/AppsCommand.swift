public import ArgumentParser
import Foundation
import SesameAPI
import SesameCore
import SesameStorageSQL

struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps", abstract: "Applications (OAuth clients).",
        subcommands: [List.self, Create.self, Show.self, Update.self, Delete.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List applications.")
        @OptionGroup var storage: StorageOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let apps = try await withStorage(storage) { try await $0.listApplications() }
            if json { return try printJSON(apps.map(ApplicationBody.init)) }
            for app in apps {
                print("\(app.clientID)  \(app.type.rawValue)  \(app.name)\(app.isDefault ? "  (default)" : "")")
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Create an application.")
        @OptionGroup var storage: StorageOptions
        @Option(help: "Display name.") var name: String
        @Option(help: "native, spa, regular or non_interactive (regular and non_interactive apps get a client secret).")
        var type: ApplicationType = .native
        @OptionGroup var settings: ApplicationSettingsOptions
        @Flag(help: "Print the application as JSON.") var json = false

        func run() async throws {
            let (name, type, settings) = (name, type, settings)
            let app = try await administer(storage, with: ApplicationAdministration.self) {
                try await $0.create(name: name, type: type) { try settings.apply(to: &$0, replace: true) }
            }
            try printApplication(app, json: json)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one application.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The client_id.") var clientID: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            guard let app = try await withStorage(storage, { try await $0.application(clientID: clientID) }) else {
                throw CommandFailure("no application with client_id \(clientID)")
            }
            try printApplication(app, json: json)
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Change an application. List options replace the list; --add-* options append to it.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The client_id.") var clientID: String
        @Option(help: "New display name.") var name: String?
        @OptionGroup var settings: ApplicationSettingsOptions
        @Option(name: .customLong("add-callback"), help: "Append an allowed callback URL.") var addCallbacks: [String] = []
        @Option(name: .customLong("add-allowed-origin"), help: "Append an allowed web origin.") var addOrigins: [String] = []
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try ApplicationSettingsOptions.validateURLs(addCallbacks + addOrigins)
            let (settings, name, addCallbacks, addOrigins) = (settings, name, addCallbacks, addOrigins)
            let clientID = clientID
            let app = try await administer(storage, with: ApplicationAdministration.self) { administration in
                try await administration.update(clientID) { app in
                    try settings.apply(to: &app, replace: false)
                    app.name = name ?? app.name
                    try ApplicationSettingsOptions.validateCallbacks(addCallbacks, type: app.type)
                    app.callbacks += addCallbacks.filter { !app.callbacks.contains($0) }
                    app.allowedOrigins += addOrigins.filter { !app.allowedOrigins.contains($0) }
                }
            }
            try printApplication(app, json: json)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an application.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The client_id.") var clientID: String

        func run() async throws {
            let clientID = clientID
            try await administer(storage, with: ApplicationAdministration.self) { try await $0.delete(clientID) }
            print("deleted \(clientID)")
        }
    }
}

extension ApplicationType: ExpressibleByArgument {}

func printApplication(_ app: Application, json: Bool) throws {
    if json { return try printJSON(ApplicationBody(app)) }
    print("client_id:        \(app.clientID)")
    if let secret = app.clientSecret { print("client_secret:    \(secret)") }
    print("name:             \(app.name)\ntype:             \(app.type.rawValue)")
    print("callbacks:        \(app.callbacks.joined(separator: " "))")
    print("allowed origins:  \(app.allowedOrigins.joined(separator: " "))")
    print("logout URLs:      \(app.logoutURLs.joined(separator: " "))")
    print("grant types:      \(app.grantTypes.joined(separator: " "))")
    print("device-key nonce: \(app.deviceKeyNonceRequired ? "required" : "not required")")
    if let logo = app.logoURL { print("logo:             \(logo)") }
    if let color = app.brandColor { print("brand colour:     \(color)") }
    if let uri = app.backchannelLogoutURI { print("back-channel logout:  \(uri)") }
    if let uri = app.frontchannelLogoutURI { print("front-channel logout: \(uri)") }
}

extension ApplicationBody {
    init(_ app: Application) {
        self.init(
            clientID: app.clientID, clientSecret: app.clientSecret, name: app.name, type: app.type.rawValue,
            callbacks: app.callbacks, allowedOrigins: app.allowedOrigins, grantTypes: app.grantTypes,
            iosBundleIDs: app.iosBundleIDs, androidPackages: app.androidPackages, iosTeamID: app.iosTeamID,
            androidFingerprints: app.androidFingerprints, isDefault: app.isDefault,
            createdAt: ISO8601.string(app.createdAt))
        deviceKeyNonceRequired = app.deviceKeyNonceRequired
        logoutURLs = app.logoutURLs
        logoURL = app.logoURL
        brandColor = app.brandColor?.description
    }
}
