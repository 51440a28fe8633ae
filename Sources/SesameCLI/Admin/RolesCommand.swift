import ArgumentParser
import Foundation
import Logging
import SesameCore
import SesameServer

/// `sesame admin roles`: roles, their permissions and who holds them.
struct RolesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roles", abstract: "Roles: the API permissions they give and the users they are assigned to.",
        subcommands: [List.self, Create.self, Delete.self, Grant.self, Revoke.self, Assign.self, Unassign.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the roles, oldest first.")
        @OptionGroup var storage: StorageOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let roles = try await administer(storage, with: RoleAdministration.self) { try await $0.list() }
            if json { return try printJSON(roles.map(RoleBody.init)) }
            for role in roles { print("\(role.id)  \(role.name)  \(role.description ?? "")") }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Add a role.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "Its unique name.") var name: String
        @Option(help: "What it is for.") var description: String?
        @Flag(help: "Print the role as JSON.") var json = false

        func run() async throws {
            let (name, description) = (name, description)
            let role = try await administer(storage, with: RoleAdministration.self) {
                try await $0.create(name: name, description: description)
            }
            if json { return try printJSON(RoleBody(role)) }
            print("role \(role.id)  \(role.name)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete a role; its users lose what it gave at their next token.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The role's id or name.") var role: String

        func run() async throws {
            let role = role
            try await administer(storage, with: RoleAdministration.self) { try await $0.delete(try await $0.named(role)) }
            print("role \(role) deleted")
        }
    }

    /// A role and permissions of one API.
    struct RolePermissions: ParsableArguments {
        @Argument(help: "The role's id or name.") var role: String
        @Argument(help: "The API's identifier.") var api: String
        @Argument(help: "The permissions.") var permissions: [String]

        /// Gives the permissions to the role (`grant`) or takes them (not `grant`).
        func change(_ storage: StorageOptions, grant: Bool) async throws {
            let (role, held) = (role, permissions.map { Permission(resourceServerIdentifier: api, permissionName: $0) })
            try await administer(storage, with: RoleAdministration.self) { roles in
                let holder = PermissionHolder.role(try await roles.named(role))
                if grant { try await roles.grant(held, to: holder) } else { try await roles.revoke(held, from: holder) }
            }
            print("role \(role) \(grant ? "grants" : "no longer grants") \(permissions.joined(separator: ", ")) on \(api)")
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "grant", abstract: "Give a role permissions of an API.")
        @OptionGroup var storage: StorageOptions
        @OptionGroup var target: RolePermissions

        func run() async throws { try await target.change(storage, grant: true) }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Take permissions from a role.")
        @OptionGroup var storage: StorageOptions
        @OptionGroup var target: RolePermissions

        func run() async throws { try await target.change(storage, grant: false) }
    }

    /// A role and a user.
    struct RoleMember: ParsableArguments {
        @Argument(help: "The role's id or name.") var role: String
        @Argument(help: "The user: a user_id (email|5f…), an email address or a phone number.") var user: String

        /// Assigns the role to the user (`assign`) or takes it from them (not `assign`).
        func change(_ storage: StorageOptions, assign: Bool) async throws {
            let (role, user) = (role, user)
            try await withConfiguredService(
                storage,
                make: { _, store in
                    (
                        RoleAdministration(storage: store, clock: SystemClock(), logger: .command),
                        UserAdministration(storage: store, clock: SystemClock(), logger: .command)
                    )
                },
                { services in
                    let (roles, users) = services
                    let (roleID, userID) = (try await roles.named(role), try await users.user(matching: user).userID)
                    if assign {
                        try await roles.assign([roleID], toUser: userID)
                    } else {
                        try await roles.unassign([roleID], fromUser: userID)
                    }
                })
            print("role \(role) \(assign ? "assigned to" : "taken from") \(user)")
        }
    }

    struct Assign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "assign", abstract: "Assign a role to a user.")
        @OptionGroup var storage: StorageOptions
        @OptionGroup var member: RoleMember

        func run() async throws { try await member.change(storage, assign: true) }
    }

    struct Unassign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unassign", abstract: "Take a role from a user.")
        @OptionGroup var storage: StorageOptions
        @OptionGroup var member: RoleMember

        func run() async throws { try await member.change(storage, assign: false) }
    }
}

extension RoleAdministration: AdministrationService {
    init(storage: any SesameStorage, clock: any SesameClock, logger: Logger) {
        self.init(storage: storage, clock: clock, random: SystemRandomSource(), logger: logger)
    }

    /// The id of the role `reference` names: its id, or its name.
    func named(_ reference: String) async throws -> String {
        if let role = try? await role(reference) { return role.id }
        guard let role = try await list().first(where: { $0.name == reference }) else {
            throw SesameError(.notFound, .notFound, "No role \(reference).")
        }
        return role.id
    }
}
