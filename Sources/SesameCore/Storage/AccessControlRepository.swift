/// APIs (``ResourceServer``), roles and the permissions given to roles and users.
public protocol AccessControlRepository: Sendable {
    /// Stores an API; throws `.alreadyExists` when its identifier is taken.
    func createResourceServer(_ api: ResourceServer) async throws
    /// The API with this id, or nil.
    func resourceServer(id: String) async throws -> ResourceServer?
    /// The API with this identifier (an `audience`), or nil.
    func resourceServer(identifier: String) async throws -> ResourceServer?
    /// Every API, oldest first.
    func resourceServers() async throws -> [ResourceServer]
    /// Applies `transform` and saves everything but the id and identifier; throws `.notFound`.
    func updateResourceServer(id: String, _ transform: @escaping @Sendable (inout ResourceServer) throws -> Void)
        async throws -> ResourceServer
    /// Deletes an API with the permissions roles and users hold on it and the client grants
    /// for it, in one transaction; throws `.notFound`.
    func deleteResourceServer(id: String) async throws

    /// Stores a role; throws `.alreadyExists` when its name is taken.
    func createRole(_ role: Role) async throws
    /// The role with this id, or nil.
    func role(id: String) async throws -> Role?
    /// Every role, oldest first.
    func roles() async throws -> [Role]
    /// Applies `transform` and saves the name and description; throws `.notFound`, or
    /// `.alreadyExists` for a name another role has.
    func updateRole(id: String, _ transform: @escaping @Sendable (inout Role) throws -> Void) async throws -> Role
    /// Deletes a role with its permissions and its members' assignments; throws `.notFound`.
    func deleteRole(id: String) async throws

    /// Gives `holder` the permissions it does not hold yet.
    func addPermissions(_ permissions: [Permission], to holder: PermissionHolder) async throws
    /// Takes the permissions from `holder` (those it does not hold are ignored).
    func removePermissions(_ permissions: [Permission], from holder: PermissionHolder) async throws
    /// The permissions given to `holder` itself, by API and name.
    func permissions(of holder: PermissionHolder) async throws -> [Permission]
    /// Assigns the roles to the user (those it has already are ignored).
    func assignRoles(_ roleIDs: [String], toUser userID: String) async throws
    /// Takes the roles from the user.
    func unassignRoles(_ roleIDs: [String], fromUser userID: String) async throws
    /// The user's roles, by name.
    func roles(ofUser userID: String) async throws -> [Role]
    /// The user ids (`email|…`) a role is assigned to, in assignment order.
    func members(ofRole roleID: String) async throws -> [String]
    /// Every permission the user holds, directly or through a role, on `audience` (nil:
    /// any), in one read: what a token for that API may carry.
    func effectivePermissions(userID: String, audience: String?) async throws -> [UserPermission]
}

/// Who permissions are given to.
public enum PermissionHolder: Sendable, Equatable {
    /// A role, by id.
    case role(String)
    /// A user, by Auth0 user id (`email|…`).
    case user(String)
}
