import Foundation
public import Logging

/// What operators do to roles (`/api/v2/roles`, `sesame admin roles`) and to the roles and
/// permissions users hold (`/api/v2/users/{id}/roles|permissions`). What they decide reaches
/// tokens at the next login or refresh. Each change is audited.
public struct RoleAdministration: Sendable, OperatorService {
    let context: OperatorContext

    /// Creates the service over `storage`.
    public init(
        storage: any SesameStorage, clock: any SesameClock, random: any RandomSource, logger: Logger = Logger(label: "sesame")
    ) {
        context = OperatorContext(storage: storage, clock: clock, random: random, logger: logger)
    }

    /// Creates a role.
    /// - Throws: 400 for a bad name; 409 when the name is taken.
    public func create(name: String, description: String?) async throws -> Role {
        let role = Role(
            id: "rol_" + random.alphanumeric(16), name: try Self.checked(name), description: description,
            createdAt: clock.now())
        try await conflictAsError { try await storage.createRole(role) }
        await audit.record(.accessControlChanged, detail: "role \(role.id) created: \(name)")
        return role
    }

    /// Every role, oldest first.
    public func list() async throws -> [Role] { try await storage.roles() }

    /// The role with this id.
    /// - Throws: 404 for an unknown role.
    public func role(_ id: String) async throws -> Role {
        guard let role = try await storage.role(id: id) else { throw Self.notFound(id) }
        return role
    }

    /// Renames a role or changes its description (nil: as it is).
    /// - Throws: 404 for an unknown role; 400 for a bad name; 409 for a name another role has.
    public func update(_ id: String, name: String?, description: String?) async throws -> Role {
        let name = try name.map(Self.checked)
        let role = try await conflictAsError {
            try await notFoundAsError(id) {
                try await storage.updateRole(id: id) {
                    $0.name = name ?? $0.name
                    $0.description = description ?? $0.description
                }
            }
        }
        await audit.record(.accessControlChanged, detail: "role \(id) updated")
        return role
    }

    /// Deletes a role; its members lose what it gave them at their next token.
    /// - Throws: 404 for an unknown role.
    public func delete(_ id: String) async throws {
        try await notFoundAsError(id) { try await storage.deleteRole(id: id) }
        await audit.record(.accessControlChanged, detail: "role \(id) deleted")
    }

    /// The permissions `holder` holds itself.
    /// - Throws: 404 for an unknown role or user.
    public func permissions(of holder: PermissionHolder) async throws -> [Permission] {
        try await requireHolder(holder)
        return try await storage.permissions(of: holder)
    }

    /// Every permission a user holds, directly or through roles.
    /// - Throws: 404 for an unknown user.
    public func effectivePermissions(ofUser userID: String) async throws -> [UserPermission] {
        try await requireHolder(.user(userID))
        return try await storage.effectivePermissions(userID: userID, audience: nil)
    }

    /// Gives `holder` permissions of stored APIs.
    /// - Throws: 404 for an unknown role, user or API; 400 for a permission the API does not define.
    public func grant(_ permissions: [Permission], to holder: PermissionHolder) async throws {
        try await requireHolder(holder)
        try await requireDefined(permissions)
        try await storage.addPermissions(permissions, to: holder)
        await audit.record(.accessControlChanged, detail: "\(Self.describe(holder)) granted \(Self.describe(permissions))")
    }

    /// Takes permissions from `holder`.
    /// - Throws: 404 for an unknown role or user.
    public func revoke(_ permissions: [Permission], from holder: PermissionHolder) async throws {
        try await requireHolder(holder)
        try await storage.removePermissions(permissions, from: holder)
        await audit.record(.accessControlChanged, detail: "\(Self.describe(holder)) revoked \(Self.describe(permissions))")
    }

    /// The users a role is assigned to.
    /// - Throws: 404 for an unknown role.
    public func members(ofRole roleID: String) async throws -> [User] {
        try await requireHolder(.role(roleID))
        var users: [User] = []
        for userID in try await storage.members(ofRole: roleID) {
            if let user = try? await requireUser(userID) { users.append(user) }
        }
        return users
    }

    /// The roles of a user.
    /// - Throws: 404 for an unknown user.
    public func roles(ofUser userID: String) async throws -> [Role] {
        try await requireHolder(.user(userID))
        return try await storage.roles(ofUser: userID)
    }

    /// Assigns roles to a user.
    /// - Throws: 404 for an unknown user or role.
    public func assign(_ roleIDs: [String], toUser userID: String) async throws {
        try await requireHolder(.user(userID))
        for id in roleIDs { try await requireHolder(.role(id)) }
        try await storage.assignRoles(roleIDs, toUser: userID)
        await audit.record(.accessControlChanged, user: userID, detail: "roles assigned: \(roleIDs.joined(separator: ", "))")
    }

    /// Takes roles from a user.
    /// - Throws: 404 for an unknown user.
    public func unassign(_ roleIDs: [String], fromUser userID: String) async throws {
        try await requireHolder(.user(userID))
        try await storage.unassignRoles(roleIDs, fromUser: userID)
        await audit.record(.accessControlChanged, user: userID, detail: "roles removed: \(roleIDs.joined(separator: ", "))")
    }

    private func requireHolder(_ holder: PermissionHolder) async throws {
        switch holder {
        case .role(let id): _ = try await role(id)
        case .user(let id): _ = try await requireUser(id)
        }
    }

    private func requireUser(_ userID: String) async throws -> User {
        guard let (_, id) = User.parse(userID: userID), let user = try await storage.user(id: id), user.userID == userID
        else { throw SesameError(.notFound, .notFound, "No user \(userID).") }
        return user
    }

    /// Refuses a permission no stored API defines, so a typo cannot give nothing silently.
    private func requireDefined(_ permissions: [Permission]) async throws {
        for permission in permissions {
            guard let api = try await storage.resourceServer(identifier: permission.resourceServerIdentifier) else {
                throw SesameError(
                    .notFound, .notFound, "No resource server has the identifier \(permission.resourceServerIdentifier).")
            }
            guard api.defines(permission.permissionName) else {
                throw SesameError.invalidRequest(
                    "The resource server \(api.identifier) does not define the permission \(permission.permissionName).")
            }
        }
    }

    private static func checked(_ name: String) throws -> String {
        guard !name.isEmpty, name.count <= 50 else { throw SesameError.invalidRequest("name must be 1 to 50 characters.") }
        return name
    }

    private static func describe(_ holder: PermissionHolder) -> String {
        switch holder {
        case .role(let id): "role \(id)"
        case .user(let id): "user \(id)"
        }
    }

    private static func describe(_ permissions: [Permission]) -> String {
        permissions.map { "\($0.resourceServerIdentifier) \($0.permissionName)" }.joined(separator: ", ")
    }

    private static func notFound(_ id: String) -> SesameError { SesameError(.notFound, .notFound, "No role \(id).") }

    private func notFoundAsError<T>(_ id: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StorageError where error.isNotFound {
            throw Self.notFound(id)
        }
    }

    private func conflictAsError<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StorageError where error.isAlreadyExists {
            throw SesameError(.conflict, "conflict", "A role with this name already exists.")
        }
    }
}
