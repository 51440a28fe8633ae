import ArgumentParser
import Foundation
import SesameAPI
import SesameCore
import SesameStorageSQL

struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Users.", subcommands: [List.self, Show.self, Block.self, Unblock.self, Delete.self])

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
        @Argument(help: "The user_id, e.g. email|5f…") var userID: String

        func run() async throws {
            try printJSON(UserProfileBody(try await findUser(userID, storage)))
        }
    }

    struct Block: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "block", abstract: "Block a user: no codes, no tokens, refresh tokens revoked.")
        @OptionGroup var storage: StorageOptions
        @Argument var userID: String

        func run() async throws {
            _ = try await administer(storage, with: UserAdministration.self) { try await $0.block(userID) }
            print("blocked \(userID)")
        }
    }

    struct Unblock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unblock", abstract: "Unblock a user.")
        @OptionGroup var storage: StorageOptions
        @Argument var userID: String

        func run() async throws {
            _ = try await administer(storage, with: UserAdministration.self) { try await $0.unblock(userID) }
            print("unblocked \(userID)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete a user and revoke their refresh tokens.")
        @OptionGroup var storage: StorageOptions
        @Argument var userID: String

        func run() async throws {
            try await administer(storage, with: UserAdministration.self) { try await $0.delete(userID) }
            print("deleted \(userID)")
        }
    }
}

private func findUser(_ userID: String, _ storage: StorageOptions) async throws -> User {
    try await administer(storage, with: UserAdministration.self) { try await $0.user(userID) }
}

extension UserProfileBody {
    init(_ user: User) {
        self.init(
            userID: user.userID, email: user.email, emailVerified: user.email == nil ? nil : user.emailVerified,
            phoneNumber: user.phoneNumber, phoneVerified: user.phoneNumber == nil ? nil : user.phoneVerified,
            name: user.name, nickname: user.nickname, picture: user.picture,
            identities: [.init(userID: user.id, provider: user.connection, connection: user.connection, isSocial: false)],
            blocked: user.blocked, createdAt: ISO8601.string(user.createdAt), updatedAt: ISO8601.string(user.updatedAt),
            lastLogin: user.lastLogin.map(ISO8601.string), loginsCount: user.loginsCount)
    }
}
