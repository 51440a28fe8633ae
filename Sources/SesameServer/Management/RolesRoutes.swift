import Foundation
import Hummingbird
import SesameAPI
public import SesameCore
import SesameParsers

/// `/api/v2/roles` and the roles and permissions of users (`/api/v2/users/{id}/roles`,
/// `/api/v2/users/{id}/permissions`), in Auth0's shape, through ``RoleAdministration``.
struct RolesRoutes {
    let adminTokens: AdminTokens
    let roles: RoleAdministration
    let apis: ResourceServerAdministration

    func register(on router: Router<SesameRequestContext>) {
        router.get("/api/v2/roles", use: list)
        router.post("/api/v2/roles", use: create)
        router.get("/api/v2/roles/:id", use: get)
        router.patch("/api/v2/roles/:id", use: update)
        router.delete("/api/v2/roles/:id", use: delete)
        router.get("/api/v2/roles/:id/permissions", use: rolePermissions)
        router.post("/api/v2/roles/:id/permissions", use: grantRolePermissions)
        router.delete("/api/v2/roles/:id/permissions", use: revokeRolePermissions)
        router.get("/api/v2/roles/:id/users", use: roleUsers)
        router.post("/api/v2/roles/:id/users", use: assignRoleUsers)
        router.get("/api/v2/users/:id/roles", use: userRoles)
        router.post("/api/v2/users/:id/roles", use: assignUserRoles)
        router.delete("/api/v2/users/:id/roles", use: unassignUserRoles)
        router.get("/api/v2/users/:id/permissions", use: userPermissions)
        router.post("/api/v2/users/:id/permissions", use: grantUserPermissions)
        router.delete("/api/v2/users/:id/permissions", use: revokeUserPermissions)
    }

    /// Every role (Auth0's `name_filter` narrows by name); a page with `include_totals=true`.
    @Sendable func list(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readRoles)
        let filter = request.uri.queryParameters["name_filter"].map { String($0).lowercased() }
        let all = try await roles.list().filter { filter == nil || $0.name.lowercased().contains(filter ?? "") }
        return try ManagementPage(request).response(all.map(RoleBody.init), key: "roles")
    }

    @Sendable func get(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readRoles)
        return try Responses.json(RoleBody(try await roles.role(Self.id(context))), noStore: true)
    }

    @Sendable func create(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .createRoles)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        try body.refuseUnknown(["name", "description"])
        guard let name = try body.string("name") else { throw SesameError.invalidRequest("name is required.") }
        let role = try await roles.create(name: name, description: try body.string("description"))
        return try Responses.json(RoleBody(role), status: .ok, noStore: true)
    }

    @Sendable func update(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .updateRoles)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        try body.refuseUnknown(["name", "description"])
        let role = try await roles.update(
            Self.id(context), name: try body.string("name"), description: try body.string("description"))
        return try Responses.json(RoleBody(role), noStore: true)
    }

    @Sendable func delete(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .deleteRoles)
        try await roles.delete(Self.id(context))
        return Response(status: .noContent)
    }

    @Sendable func rolePermissions(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readRoles)
        let held = try await roles.permissions(of: .role(Self.id(context)))
        let bodies = try await PermissionBody.describe(held, apis: apis)
        return try ManagementPage(request).response(bodies, key: "permissions")
    }

    @Sendable func grantRolePermissions(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .updateRoles)
        try await roles.grant(try await Self.permissions(request, context), to: .role(Self.id(context)))
        return Response(status: .created)
    }

    @Sendable func revokeRolePermissions(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .updateRoles)
        try await roles.revoke(try await Self.permissions(request, context), from: .role(Self.id(context)))
        return Response(status: .noContent)
    }

    /// The role's users; with `from`/`take` Auth0's checkpoint page (`{users, next}`).
    @Sendable func roleUsers(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readRoleMembers)
        let members = try await roles.members(ofRole: Self.id(context)).map(RoleUserBody.init)
        let query = request.uri.queryParameters
        guard query["take"] != nil || query["from"] != nil else {
            return try ManagementPage(request).response(members, key: "users")
        }
        let start = query["from"].flatMap { Int(String($0)) } ?? 0
        let take = query["take"].flatMap { Int(String($0)) } ?? 50
        guard start >= 0, (1...100).contains(take) else {
            throw SesameError.invalidRequest("from must be a position from 0 and take from 1 to 100.")
        }
        let end = min(members.count, start + take)
        let page = start < end ? Array(members[start..<end]) : []
        return try Responses.json(RoleUsersPageBody(users: page, next: end < members.count ? String(end) : nil), noStore: true)
    }

    @Sendable func assignRoleUsers(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .createRoleMembers)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        try body.refuseUnknown(["users"])
        guard let users = try body.strings("users"), !users.isEmpty else {
            throw SesameError.invalidRequest("users is required.")
        }
        let roleID = Self.id(context)
        _ = try await roles.role(roleID)
        for user in users { try await roles.assign([roleID], toUser: user) }
        return Response(status: .ok)
    }

    @Sendable func userRoles(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readUsers)
        let held = try await roles.roles(ofUser: try ManagementController.userID(context))
        return try ManagementPage(request).response(held.map(RoleBody.init), key: "roles")
    }

    @Sendable func assignUserRoles(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .createRoleMembers)
        try await roles.assign(try await Self.roleIDs(request, context), toUser: try ManagementController.userID(context))
        return Response(status: .noContent)
    }

    @Sendable func unassignUserRoles(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .deleteRoleMembers)
        try await roles.unassign(try await Self.roleIDs(request, context), fromUser: try ManagementController.userID(context))
        return Response(status: .noContent)
    }

    /// What the user holds, directly and through roles, each with its `sources`.
    @Sendable func userPermissions(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readUsers)
        let held = try await roles.effectivePermissions(ofUser: try ManagementController.userID(context))
        let names = Dictionary(try await roles.list().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let described = try await PermissionBody.describe(held.map(\.permission), apis: apis)
        let bodies = zip(held, described).map { permission, body in
            var body = body
            body.sources =
                (permission.direct ? [PermissionBody.Source(sourceID: "", sourceName: "", sourceType: "DIRECT")] : [])
                + permission.roleIDs.map {
                    PermissionBody.Source(sourceID: $0, sourceName: names[$0] ?? "", sourceType: "ROLE")
                }
            return body
        }
        return try ManagementPage(request).response(bodies, key: "permissions")
    }

    @Sendable func grantUserPermissions(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .updateUsers)
        let userID = try ManagementController.userID(context)
        try await roles.grant(try await Self.permissions(request, context), to: .user(userID))
        return Response(status: .created)
    }

    @Sendable func revokeUserPermissions(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .updateUsers)
        let userID = try ManagementController.userID(context)
        try await roles.revoke(try await Self.permissions(request, context), from: .user(userID))
        return Response(status: .noContent)
    }

    static func id(_ context: SesameRequestContext) -> String { context.parameters.get("id") ?? "" }

    /// A body's `permissions`: `[{resource_server_identifier, permission_name}]`, at least one.
    static func permissions(_ request: Request, _ context: SesameRequestContext) async throws -> [Permission] {
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        try body.refuseUnknown(["permissions"])
        guard let items = try body.objects("permissions"), !items.isEmpty else {
            throw SesameError.invalidRequest("permissions is required.")
        }
        return try items.map { item in
            try item.refuseUnknown(["resource_server_identifier", "permission_name"])
            guard let api = try item.string("resource_server_identifier"), let name = try item.string("permission_name")
            else { throw SesameError.invalidRequest("Each permission needs resource_server_identifier and permission_name.") }
            return Permission(resourceServerIdentifier: api, permissionName: name)
        }
    }

    /// A body's `roles`: role ids, at least one.
    static func roleIDs(_ request: Request, _ context: SesameRequestContext) async throws -> [String] {
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        try body.refuseUnknown(["roles"])
        guard let ids = try body.strings("roles"), !ids.isEmpty else { throw SesameError.invalidRequest("roles is required.") }
        return ids
    }
}

/// A role in Auth0's shape.
public struct RoleBody: Codable, Sendable, Equatable {
    var id: String
    var name: String
    var description: String?

    /// The role in Auth0's shape.
    public init(_ role: Role) { (id, name, description) = (role.id, role.name, role.description) }
}

/// A permission in Auth0's shape; `sources` only where a user's permissions are listed.
struct PermissionBody: Codable, Sendable, Equatable {
    var resourceServerIdentifier: String
    var permissionName: String
    var resourceServerName: String
    var description: String?
    var sources: [Source]?

    struct Source: Codable, Sendable, Equatable {
        var sourceID: String
        var sourceName: String
        var sourceType: String

        enum CodingKeys: String, CodingKey {
            case sourceID = "source_id", sourceName = "source_name", sourceType = "source_type"
        }
    }

    enum CodingKeys: String, CodingKey {
        case description, sources
        case resourceServerIdentifier = "resource_server_identifier", permissionName = "permission_name"
        case resourceServerName = "resource_server_name"
    }

    /// The permissions with their API's name and the description the API gives them.
    static func describe(_ permissions: [Permission], apis: ResourceServerAdministration) async throws -> [PermissionBody] {
        let all = try await apis.list()
        return permissions.map { permission in
            let api = all.first { $0.identifier == permission.resourceServerIdentifier }
            return PermissionBody(
                resourceServerIdentifier: permission.resourceServerIdentifier, permissionName: permission.permissionName,
                resourceServerName: api?.name ?? permission.resourceServerIdentifier,
                description: api?.scopes.first { $0.value == permission.permissionName }?.description)
        }
    }
}

/// A role's member in Auth0's shape.
struct RoleUserBody: Codable, Sendable, Equatable {
    var userID: String
    var email: String?
    var name: String?
    var picture: String?

    enum CodingKeys: String, CodingKey {
        case email, name, picture
        case userID = "user_id"
    }

    init(_ user: User) { (userID, email, name, picture) = (user.userID, user.email, user.name, user.picture) }
}

/// Auth0's checkpoint page of a role's users.
struct RoleUsersPageBody: Codable, Sendable, Equatable {
    var users: [RoleUserBody]
    var next: String?
}
