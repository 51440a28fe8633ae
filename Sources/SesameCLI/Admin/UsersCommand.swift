import ArgumentParser
import Foundation
import SesameAPI
import SesameCore
import SesameStorageSQL

struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Users.",
        subcommands: [
            List.self, Show.self, Create.self, Import.self, Export.self, Block.self, Unblock.self, Delete.self,
        ])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List users, newest first.")
        @OptionGroup var storage: StorageOptions
        @Option var limit = 50
        @Option var offset = 0
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let users = try await withStorage(storage) { try await $0.listUsers(limit: limit, offset: offset) }
            if json { return try printJSON(users.map(UserProfileBody.init)) }
            for user in users {
                print("\(user.userID)  \(user.identifier)  logins \(user.loginsCount)\(user.blocked ? "  BLOCKED" : "")")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a user's profile as JSON.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The user: a user_id (email|5f…), an email address or a phone number.") var userID: String
        @Flag(help: "Print JSON (as without it: the profile is JSON).") var json = false

        func run() async throws {
            let user = try await administer(storage, with: UserAdministration.self) { [userID] in
                try await $0.user(matching: userID)
            }
            try printJSON(UserProfileBody(user))
        }
    }

    struct Block: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "block", abstract: "Block a user: no codes, no tokens, refresh tokens revoked.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The user: a user_id (email|5f…), an email address or a phone number.") var userID: String

        func run() async throws {
            let user = try await administer(storage, with: UserAdministration.self) { [userID] in
                try await $0.block(try await $0.user(matching: userID).userID)
            }
            print("blocked \(user.userID)")
        }
    }

    struct Unblock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unblock", abstract: "Unblock a user.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The user: a user_id (email|5f…), an email address or a phone number.") var userID: String

        func run() async throws {
            let user = try await administer(storage, with: UserAdministration.self) { [userID] in
                try await $0.unblock(try await $0.user(matching: userID).userID)
            }
            print("unblocked \(user.userID)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete a user and revoke their refresh tokens.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The user: a user_id (email|5f…), an email address or a phone number.") var userID: String

        func run() async throws {
            let deleted = try await administer(storage, with: UserAdministration.self) { [userID] in
                let user = try await $0.user(matching: userID)
                try await $0.delete(user.userID)
                return user.userID
            }
            print("deleted \(deleted)")
        }
    }
}

extension UserProfileBody {
    init(_ user: User) {
        self.init(
            userID: user.userID, email: user.email, emailVerified: user.email == nil ? nil : user.emailVerified,
            phoneNumber: user.phoneNumber, phoneVerified: user.phoneNumber == nil ? nil : user.phoneVerified,
            name: user.name, nickname: user.nickname, picture: user.picture,
            identities: [
                .init(userID: user.id, provider: user.provider ?? user.connection, connection: user.connection, isSocial: false)
            ],
            blocked: user.blocked, createdAt: ISO8601.string(user.createdAt), updatedAt: ISO8601.string(user.updatedAt),
            lastLogin: user.lastLogin.map(ISO8601.string), loginsCount: user.loginsCount)
    }
}
