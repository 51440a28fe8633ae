import Foundation
import SesameCore

/// APIs, roles, and the permissions given to roles and users.
enum AccessControlChecks {
    static let all = [
        ConformanceCheck("APIs: create, get by id and identifier, list, update, delete; identifiers are unique") {
            store, clock in
            var api = ResourceServer(
                id: "aaaaaaaaaaaaaaaaaaaaaaaa", identifier: "https://api.example.com", name: "API",
                scopes: [ResourceServerScope(value: "read:things", description: "Read")], enforcePolicies: true,
                tokenDialect: .accessTokenAuthz, createdAt: clock.now())
            try await store.createResourceServer(api)
            try await expect(try await store.resourceServer(id: api.id) == api, "get by id round-trips every setting")
            try await expect(try await store.resourceServer(identifier: api.identifier) == api, "get by identifier")
            var twin = api
            twin.id = "bbbbbbbbbbbbbbbbbbbbbbbb"
            try await expectStorageError(.alreadyExists()) { try await store.createResourceServer(twin) }
            let updated = try await store.updateResourceServer(id: api.id) {
                ($0.name, $0.tokenLifetime, $0.identifier) = ("Renamed", 600, "https://moved.example.com")
            }
            (api.name, api.tokenLifetime) = ("Renamed", 600)
            try await expect(updated == api, "update keeps the identifier and returns the stored API")
            try await expect(try await store.resourceServers() == [api], "list")
            try await store.deleteResourceServer(id: api.id)
            try await expect(try await store.resourceServer(id: api.id) == nil, "delete removes it")
            try await expectStorageError(.notFound()) { try await store.deleteResourceServer(id: api.id) }
            try await expectStorageError(.notFound()) { _ = try await store.updateResourceServer(id: api.id) { _ in } }
        },
        ConformanceCheck("roles: create, get, list, update, delete; names are unique") { store, clock in
            let role = Role(id: "rol_1", name: "admin", description: "Admins", createdAt: clock.now())
            try await store.createRole(role)
            try await expect(try await store.role(id: "rol_1") == role, "get")
            try await expectStorageError(.alreadyExists()) {
                try await store.createRole(Role(id: "rol_2", name: "admin", createdAt: clock.now()))
            }
            try await store.createRole(Role(id: "rol_3", name: "reader", createdAt: clock.now()))
            try await expectStorageError(.alreadyExists()) { _ = try await store.updateRole(id: "rol_3") { $0.name = "admin" } }
            let renamed = try await store.updateRole(id: "rol_1") { $0.description = nil }
            try await expect(renamed.description == nil && renamed.name == "admin", "update")
            try await expect(try await store.roles().map(\.id) == ["rol_1", "rol_3"], "list, oldest first")
            try await store.deleteRole(id: "rol_1")
            try await expect(try await store.role(id: "rol_1") == nil, "delete")
            try await expectStorageError(.notFound()) { try await store.deleteRole(id: "rol_1") }
        },
        ConformanceCheck("permissions: roles and users hold them; a user's are the union, with their sources") {
            store, clock in
            let api = "https://api.example.com"
            let read = Permission(resourceServerIdentifier: api, permissionName: "read")
            let write = Permission(resourceServerIdentifier: api, permissionName: "write")
            let other = Permission(resourceServerIdentifier: "https://other.example.com", permissionName: "read")
            try await store.createRole(Role(id: "rol_r", name: "r", createdAt: clock.now()))
            try await store.addPermissions([read, write, read], to: .role("rol_r"))
            try await store.addPermissions([read], to: .role("rol_r"))
            try await expect(try await store.permissions(of: .role("rol_r")) == [read, write], "added once each")
            try await store.addPermissions([read, other], to: .user("email|ana"))
            try await store.assignRoles(["rol_r", "rol_r"], toUser: "email|ana")
            try await store.assignRoles(["rol_r"], toUser: "email|bo")
            try await expect(try await store.roles(ofUser: "email|ana").map(\.id) == ["rol_r"], "roles of a user")
            try await expect(try await store.members(ofRole: "rol_r") == ["email|ana", "email|bo"], "members in order")
            let held = try await store.effectivePermissions(userID: "email|ana", audience: api)
            try await expect(
                held == [
                    UserPermission(permission: read, roleIDs: ["rol_r"], direct: true),
                    UserPermission(permission: write, roleIDs: ["rol_r"], direct: false),
                ], "direct and through the role, for one API")
            try await expect(
                try await store.effectivePermissions(userID: "email|ana", audience: nil).count == 3, "for every API")
            try await store.removePermissions([write], from: .role("rol_r"))
            try await store.unassignRoles(["rol_r"], fromUser: "email|bo")
            try await expect(try await store.members(ofRole: "rol_r") == ["email|ana"], "unassigned")
            try await expect(
                try await store.effectivePermissions(userID: "email|ana", audience: api).map(\.permission) == [read],
                "a permission taken from the role is gone")
            try await store.deleteRole(id: "rol_r")
            try await expect(try await store.roles(ofUser: "email|ana").isEmpty, "a deleted role leaves its members")
        },
        ConformanceCheck("permissions: deleting an API or a user removes what was given on it or to them") { store, clock in
            let api = ResourceServer(
                id: "cccccccccccccccccccccccc", identifier: "https://gone.example.com", name: "Gone",
                createdAt: clock.now())
            try await store.createResourceServer(api)
            let user = Fixture.user(at: clock.now())
            try await store.createUser(user)
            let permission = Permission(resourceServerIdentifier: api.identifier, permissionName: "read")
            try await store.createRole(Role(id: "rol_g", name: "g", createdAt: clock.now()))
            try await store.addPermissions([permission], to: .role("rol_g"))
            try await store.addPermissions([permission], to: .user(user.userID))
            try await store.assignRoles(["rol_g"], toUser: user.userID)
            try await store.createClientGrant(
                ClientGrant(id: "cgr_g", clientID: "m2m", audience: api.identifier, scope: ["read"], createdAt: clock.now()))
            try await store.deleteResourceServer(id: api.id)
            try await expect(try await store.permissions(of: .role("rol_g")).isEmpty, "the role's permissions on it")
            try await expect(try await store.permissions(of: .user(user.userID)).isEmpty, "the user's")
            try await expect(try await store.clientGrant(id: "cgr_g") == nil, "and its client grants")
            let kept = Permission(resourceServerIdentifier: "https://kept.example.com", permissionName: "read")
            try await store.addPermissions([kept], to: .user(user.userID))
            try await store.deleteUser(id: user.id, at: clock.now())
            try await expect(try await store.members(ofRole: "rol_g").isEmpty, "a deleted user leaves their roles")
            try await expect(try await store.permissions(of: .user(user.userID)).isEmpty, "and their permissions")
        },
    ]
}
