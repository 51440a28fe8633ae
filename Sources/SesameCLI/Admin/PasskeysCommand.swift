import ArgumentParser
import Foundation
import SesameCore
import SesameStorageSQL

/// `sesame admin passkeys`: see, disable and delete users' passkeys.
struct PasskeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeys", abstract: "List, disable, enable and delete users' passkeys.",
        subcommands: [List.self, Disable.self, Enable.self, Delete.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List a user's passkeys.")
        @OptionGroup var storage: StorageOptions
        @Option(help: "The user: a user_id (email|0123abcd…), an email address or a phone number.") var user: String
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let passkeys = try await withStorage(storage) { [user] store in
                let userID = try await resolvedUserID(user, in: store) ?? user
                guard let (_, id) = User.parse(userID: userID) else { throw CommandFailure("No user \(user).") }
                return try await store.passkeys(userID: id)
            }
            if json { return try printJSON(passkeys.map(AdminPasskeyBody.init)) }
            for passkey in passkeys {
                print(
                    "\(passkey.id)  \(passkey.name)  \(passkey.disabled ? "disabled" : "active")  created \(ISO8601.string(passkey.createdAt))"
                )
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "disable", abstract: "Stop a passkey from signing in, keeping its record.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The credential id.") var id: String

        func run() async throws { try await PasskeysCommand.setDisabled(true, id: id, storage: storage) }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "enable", abstract: "Let a disabled passkey sign in again.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The credential id.") var id: String

        func run() async throws { try await PasskeysCommand.setDisabled(false, id: id, storage: storage) }
    }

    /// `disable` and `enable` differ only in the flag they store.
    static func setDisabled(_ disabled: Bool, id: String, storage: StorageOptions) async throws {
        _ = try await administer(storage, with: CredentialAdministration.self) { try await $0.setPasskeyDisabled(id, disabled) }
        print("\(disabled ? "disabled" : "enabled") \(id)")
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a passkey for good.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The credential id.") var id: String

        func run() async throws {
            try await administer(storage, with: CredentialAdministration.self) { try await $0.deletePasskey(id) }
            print("deleted \(id)")
        }
    }
}

/// A passkey as `admin passkeys list --json` prints it.
struct AdminPasskeyBody: Encodable {
    let id: String, userID: String, name: String, algorithm: Int, signCount: UInt32, format: String, aaguid: String
    let backupEligible: Bool, backedUp: Bool, disabled: Bool, createdAt: String, lastUsedAt: String?

    init(_ p: PasskeyCredential) {
        (id, userID, name, algorithm, signCount) = (p.id, p.userID, p.name, p.algorithm, p.signCount)
        (format, aaguid, backupEligible, backedUp, disabled) = (p.format, p.aaguid, p.backupEligible, p.backedUp, p.disabled)
        (createdAt, lastUsedAt) = (ISO8601.string(p.createdAt), p.lastUsedAt.map(ISO8601.string))
    }

    enum CodingKeys: String, CodingKey {
        case id, userID = "user_id", name, algorithm, signCount = "sign_count", format, aaguid
        case backupEligible = "backup_eligible", backedUp = "backed_up", disabled, createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }
}
