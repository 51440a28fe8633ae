import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: AccessControlRepository {
    public func createResourceServer(_ api: ResourceServer) async throws {
        let options = try jsonText(api)
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO resource_servers (id, identifier, name, options, created_at)
                VALUES (\(bind: api.id), \(bind: api.identifier), \(bind: api.name), \(bind: options),
                \(bind: api.createdAt.sqlValue))
                """
            ).run()
        }
    }

    public func resourceServer(id: String) async throws -> ResourceServer? {
        try await executor.read { db in
            try await db.raw("SELECT * FROM resource_servers WHERE id = \(bind: id)").first().map(Self.resourceServer(from:))
        }
    }

    public func resourceServer(identifier: String) async throws -> ResourceServer? {
        try await executor.read { db in
            try await db.raw("SELECT * FROM resource_servers WHERE identifier = \(bind: identifier)").first()
                .map(Self.resourceServer(from:))
        }
    }

    public func resourceServers() async throws -> [ResourceServer] {
        try await executor.read { db in
            try await db.raw("SELECT * FROM resource_servers ORDER BY created_at, id").all().map(Self.resourceServer(from:))
        }
    }

    public func updateResourceServer(id: String, _ transform: @escaping @Sendable (inout ResourceServer) throws -> Void)
        async throws -> ResourceServer
    {
        try await executor.transaction { db in
            guard let row = try await db.raw("SELECT * FROM resource_servers WHERE id = \(bind: id)").first() else {
                throw StorageError.notFound("resource server \(id)")
            }
            let stored = try Self.resourceServer(from: row)
            var api = stored
            try transform(&api)
            (api.id, api.identifier, api.createdAt) = (stored.id, stored.identifier, stored.createdAt)
            try await db.raw(
                "UPDATE resource_servers SET name = \(bind: api.name), options = \(bind: try jsonText(api)) WHERE id = \(bind: id)"
            ).run()
            return api
        }
    }

    public func deleteResourceServer(id: String) async throws {
        try await executor.transaction { db in
            guard
                let row = try await db.raw("DELETE FROM resource_servers WHERE id = \(bind: id) RETURNING identifier")
                    .first()
            else { throw StorageError.notFound("resource server \(id)") }
            // What was given on the API goes with it: a new API of the same identifier starts bare.
            let identifier = try row.string("identifier")
            try await db.raw("DELETE FROM role_permissions WHERE resource_server_identifier = \(bind: identifier)").run()
            try await db.raw("DELETE FROM user_permissions WHERE resource_server_identifier = \(bind: identifier)").run()
            try await db.raw("DELETE FROM client_grants WHERE audience = \(bind: identifier)").run()
        }
    }

    public func createRole(_ role: Role) async throws {
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO roles (id, name, description, created_at)
                VALUES (\(bind: role.id), \(bind: role.name), \(bind: role.description), \(bind: role.createdAt.sqlValue))
                """
            ).run()
        }
    }

    public func role(id: String) async throws -> Role? {
        try await executor.read { db in
            try await db.raw("SELECT * FROM roles WHERE id = \(bind: id)").first().map(Self.role(from:))
        }
    }

    public func roles() async throws -> [Role] {
        try await executor.read { db in
            try await db.raw("SELECT * FROM roles ORDER BY created_at, id").all().map(Self.role(from:))
        }
    }

    public func updateRole(id: String, _ transform: @escaping @Sendable (inout Role) throws -> Void) async throws -> Role {
        try await executor.transaction { db in
            guard let row = try await db.raw("SELECT * FROM roles WHERE id = \(bind: id)").first() else {
                throw StorageError.notFound("role \(id)")
            }
            var role = try Self.role(from: row)
            try transform(&role)
            (role.id, role.createdAt) = (id, try row.date("created_at"))
            try await db.raw(
                "UPDATE roles SET name = \(bind: role.name), description = \(bind: role.description) WHERE id = \(bind: id)"
            ).run()
            return role
        }
    }

    public func deleteRole(id: String) async throws {
        try await executor.transaction { db in
            guard try await db.raw("DELETE FROM roles WHERE id = \(bind: id) RETURNING id").first() != nil else {
                throw StorageError.notFound("role \(id)")
            }
            try await db.raw("DELETE FROM role_permissions WHERE role_id = \(bind: id)").run()
            try await db.raw("DELETE FROM user_roles WHERE role_id = \(bind: id)").run()
        }
    }

    public func addPermissions(_ permissions: [Permission], to holder: PermissionHolder) async throws {
        let (table, column, key) = Self.permissionTable(holder)
        try await executor.transaction { db in
            for permission in permissions {
                try await db.raw(
                    """
                    INSERT INTO \(ident: table) (\(ident: column), resource_server_identifier, permission_name)
                    VALUES (\(bind: key), \(bind: permission.resourceServerIdentifier), \(bind: permission.permissionName))
                    ON CONFLICT DO NOTHING
                    """
                ).run()
            }
        }
    }

    public func removePermissions(_ permissions: [Permission], from holder: PermissionHolder) async throws {
        let (table, column, key) = Self.permissionTable(holder)
        try await executor.transaction { db in
            for permission in permissions {
                try await db.raw(
                    """
                    DELETE FROM \(ident: table) WHERE \(ident: column) = \(bind: key)
                    AND resource_server_identifier = \(bind: permission.resourceServerIdentifier)
                    AND permission_name = \(bind: permission.permissionName)
                    """
                ).run()
            }
        }
    }

    public func permissions(of holder: PermissionHolder) async throws -> [Permission] {
        let (table, column, key) = Self.permissionTable(holder)
        return try await executor.read { db in
            try await db.raw(
                """
                SELECT resource_server_identifier, permission_name FROM \(ident: table) WHERE \(ident: column) = \(bind: key)
                ORDER BY resource_server_identifier, permission_name
                """
            ).all().map(Self.permission(from:))
        }
    }

    public func assignRoles(_ roleIDs: [String], toUser userID: String) async throws {
        try await executor.transaction { db in
            for roleID in roleIDs {
                try await db.raw(
                    """
                    INSERT INTO user_roles (seq, user_id, role_id)
                    SELECT COALESCE(MAX(seq), 0) + 1, \(bind: userID), \(bind: roleID) FROM user_roles WHERE true
                    ON CONFLICT DO NOTHING
                    """
                ).run()
            }
        }
    }

    public func unassignRoles(_ roleIDs: [String], fromUser userID: String) async throws {
        try await executor.transaction { db in
            for roleID in roleIDs {
                try await db.raw("DELETE FROM user_roles WHERE user_id = \(bind: userID) AND role_id = \(bind: roleID)").run()
            }
        }
    }

    public func roles(ofUser userID: String) async throws -> [Role] {
        try await executor.read { db in
            try await db.raw(
                """
                SELECT roles.* FROM roles JOIN user_roles ON user_roles.role_id = roles.id
                WHERE user_roles.user_id = \(bind: userID) ORDER BY roles.name, roles.id
                """
            ).all().map(Self.role(from:))
        }
    }

    public func members(ofRole roleID: String) async throws -> [String] {
        try await executor.read { db in
            try await db.raw("SELECT user_id FROM user_roles WHERE role_id = \(bind: roleID) ORDER BY seq").all()
                .map { try $0.string("user_id") }
        }
    }

    public func effectivePermissions(userID: String, audience: String?) async throws -> [UserPermission] {
        let (direct, viaRole) = Self.audienceFilters(audience)
        let rows = try await executor.read { db in
            try await db.raw(
                """
                SELECT resource_server_identifier, permission_name, CAST(NULL AS TEXT) AS role_id FROM user_permissions
                WHERE user_id = \(bind: userID) \(direct)
                UNION ALL
                SELECT rp.resource_server_identifier, rp.permission_name, rp.role_id FROM role_permissions rp
                JOIN user_roles ur ON ur.role_id = rp.role_id WHERE ur.user_id = \(bind: userID) \(viaRole)
                """
            ).all()
        }
        var held: [UserPermission] = []
        for row in rows {
            let permission = try Self.permission(from: row)
            let role = try row.optionalString("role_id")
            if let index = held.firstIndex(where: { $0.permission == permission }) {
                if let role { held[index].roleIDs.append(role) } else { held[index].direct = true }
            } else {
                held.append(UserPermission(permission: permission, roleIDs: role.map { [$0] } ?? [], direct: role == nil))
            }
        }
        return held.sorted {
            ($0.permission.resourceServerIdentifier, $0.permission.permissionName)
                < ($1.permission.resourceServerIdentifier, $1.permission.permissionName)
        }
    }

    /// The conditions that keep the permissions of one API, in a user's own and through roles.
    private static func audienceFilters(_ audience: String?) -> (SQLQueryString, SQLQueryString) {
        guard let audience else { return ("", "") }
        return (
            "AND resource_server_identifier = \(bind: audience)", "AND rp.resource_server_identifier = \(bind: audience)"
        )
    }

    /// The table, holder column and key of a holder's own permissions.
    private static func permissionTable(_ holder: PermissionHolder) -> (String, String, String) {
        switch holder {
        case .role(let id): ("role_permissions", "role_id", id)
        case .user(let id): ("user_permissions", "user_id", id)
        }
    }

    private static func permission(from row: any SQLRow) throws -> Permission {
        Permission(
            resourceServerIdentifier: try row.string("resource_server_identifier"),
            permissionName: try row.string("permission_name"))
    }

    private static func resourceServer(from row: any SQLRow) throws -> ResourceServer {
        var api = try row.json("options", as: ResourceServer.self)
        (api.id, api.identifier, api.name, api.createdAt) =
            (try row.string("id"), try row.string("identifier"), try row.string("name"), try row.date("created_at"))
        return api
    }

    private static func role(from row: any SQLRow) throws -> Role {
        Role(
            id: try row.string("id"), name: try row.string("name"), description: try row.optionalString("description"),
            createdAt: try row.date("created_at"))
    }
}
