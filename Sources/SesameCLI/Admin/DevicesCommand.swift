import ArgumentParser
import Foundation
import SesameAPI
import SesameCore
import SesameServer
import SesameStorageSQL

/// `sesame admin devices`: device credentials (device-key login public keys).
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "Device credentials (public keys for device-key login).",
        subcommands: [List.self, Delete.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List device credentials.")
        @OptionGroup var storage: StorageOptions
        @Option(name: .customLong("user"), help: "Only this user (user_id, email address or phone number).")
        var userID: String?
        @Option(name: .customLong("client"), help: "Only this client_id.") var clientID: String?
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let (userID, clientID) = (userID, clientID)
            let credentials = try await withStorage(storage) { store in
                try await store.deviceCredentials(userID: try await resolvedUserID(userID, in: store), clientID: clientID)
            }
            if json { return try printJSON(credentials.map(DeviceCredentialBody.init)) }
            for credential in credentials {
                print(
                    "\(credential.id)  \(credential.userID)  \(credential.algorithm.rawValue)-\(credential.keyBits)  \(credential.deviceName)"
                )
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete a device credential; its logins stop at once.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The credential id (dcr_…).") var id: String

        func run() async throws {
            try await administer(storage, with: CredentialAdministration.self) { try await $0.deleteDeviceCredential(id) }
            print("deleted \(id)")
        }
    }
}
