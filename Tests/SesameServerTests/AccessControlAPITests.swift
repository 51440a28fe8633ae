import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import Testing

/// `/api/v2/resource-servers`, `/api/v2/roles` and the roles and permissions of users: Auth0's
/// shapes, their scopes, and 4xx answers for every bad input.
@Suite("Management API: APIs, roles and permissions")
struct AccessControlAPITests {
    static let api = "https://api.example.com"

    @Test("an API round-trips in Auth0's shape; its identifier works as its id; a taken one is 409")
    func resourceServers() async throws {
        try await Harness.run { h in
            let admin = try await ManagementAPITests.token(h)
            let created = try await h.post(
                "/api/v2/resource-servers",
                [
                    "identifier": Self.api, "name": "API", "scopes": [["value": "read", "description": "Read"]],
                    "token_lifetime": 600, "token_dialect": "access_token_authz", "enforce_policies": true,
                ], headers: admin)
            #expect(created.status == .created)
            let body = try #require(try ManagementAPITests.json(created) as? [String: Any])
            #expect(body["token_lifetime"] as? Int == 600 && body["token_lifetime_for_web"] as? Int == 600)
            #expect(body["signing_alg"] as? String == "RS256" && body["allow_offline_access"] as? Bool == false)
            let byIdentifier = try await h.get("/api/v2/resource-servers/https%3A%2F%2Fapi.example.com", headers: admin)
            #expect((try ManagementAPITests.json(byIdentifier) as? [String: Any])?["id"] as? String == body["id"] as? String)
            let again = try await h.post("/api/v2/resource-servers", ["identifier": Self.api], headers: admin)
            #expect(again.status == .conflict)
            let id = try #require(body["id"] as? String)
            let patched = try await h.patch("/api/v2/resource-servers/\(id)", ["name": "Renamed"], headers: admin)
            #expect((try ManagementAPITests.json(patched) as? [String: Any])?["name"] as? String == "Renamed")
            #expect(try await h.delete("/api/v2/resource-servers/\(id)", headers: admin).status == .noContent)
            #expect(try await h.get("/api/v2/resource-servers/\(id)", headers: admin).status == .notFound)
        }
    }

    /// Attack: a management token with the resource-server scopes rewrites the Management
    /// API's listed entry (its scopes or name), deletes it, or registers another API under its
    /// identifier so that tokens for it would follow that API's settings. The system API is
    /// listed first and read-only: 403 for PATCH and DELETE, 409 for another one.
    @Test("the system Management API is listed first and cannot be changed, deleted or shadowed")
    func systemAPITampering() async throws {
        try await Harness.run { h in
            let admin = try await ManagementAPITests.token(h)
            #expect(try await h.post("/api/v2/resource-servers", ["identifier": Self.api], headers: admin).status == .created)
            let list = try await h.get("/api/v2/resource-servers?include_totals=true&per_page=1", headers: admin)
            let page = try #require(try ManagementAPITests.json(list) as? [String: Any])
            let system = try #require((page["resource_servers"] as? [[String: Any]])?.first)
            #expect(page["total"] as? Int == 2 && system["is_system"] as? Bool == true)
            let (id, identifier) = (try #require(system["id"] as? String), try #require(system["identifier"] as? String))
            #expect(identifier.hasSuffix("/api/v2/"))
            let scopes = (system["scopes"] as? [[String: Any]])?.compactMap { $0["value"] as? String }
            #expect(scopes == ManagementScope.allCases.map(\.rawValue))
            let byID = try #require(
                try ManagementAPITests.json(try await h.get("/api/v2/resource-servers/\(id)", headers: admin)) as? [String: Any])
            #expect(byID["identifier"] as? String == identifier && byID["is_system"] as? Bool == true)
            let patched = try await h.patch("/api/v2/resource-servers/\(id)", ["scopes": [["value": "mine"]]], headers: admin)
            #expect(patched.status == .forbidden)
            #expect(try await h.delete("/api/v2/resource-servers/\(id)", headers: admin).status == .forbidden)
            #expect(try await h.post("/api/v2/resource-servers", ["identifier": identifier], headers: admin).status == .conflict)
            let again = try #require(
                try ManagementAPITests.json(try await h.get("/api/v2/resource-servers/\(id)", headers: admin)) as? [String: Any])
            #expect((again["scopes"] as? [Any])?.count == ManagementScope.allCases.count)
        }
    }

    /// Attack: malformed bodies (wrong types, unknown fields, another algorithm, absurd
    /// lifetimes, an identifier with spaces) aimed at a 5xx or at an API that signs otherwise.
    @Test("bad API settings are 400, never 5xx")
    func badResourceServerSettings() async throws {
        try await Harness.run { h in
            let admin = try await ManagementAPITests.token(h)
            let bad: [[String: Any?]] = [
                ["identifier": "has space"], ["identifier": Self.api, "signing_alg": "HS256"],
                ["identifier": Self.api, "token_lifetime": 0], ["identifier": Self.api, "token_lifetime": 1.5],
                ["identifier": Self.api, "token_lifetime": 600, "token_lifetime_for_web": 601],
                ["identifier": Self.api, "scopes": ["read"]], ["identifier": Self.api, "scopes": [["value": "a b"]]],
                ["identifier": Self.api, "token_dialect": "jwt"], ["identifier": Self.api, "nope": true], ["name": "x"],
            ]
            for body in bad {
                #expect(try await h.post("/api/v2/resource-servers", body, headers: admin).status == .badRequest, "\(body)")
            }
        }
    }

    /// Attack: a token that may only read roles (a dashboard's) used to give itself or others
    /// permissions, or to assign roles.
    @Test("role changes need their scopes: read:roles cannot grant, assign or delete")
    func roleScopes() async throws {
        try await Harness.run { h in
            let admin = try await ManagementAPITests.token(h)
            _ = try await h.post(
                "/api/v2/resource-servers", ["identifier": Self.api, "scopes": [["value": "read"]]], headers: admin)
            let role = try #require(
                try ManagementAPITests.json(try await h.post("/api/v2/roles", ["name": "reader"], headers: admin))
                    as? [String: Any])
            let id = try #require(role["id"] as? String)
            let reader = try await ManagementAPITests.token(h, ["read:roles"])
            let permissions = ["permissions": [["resource_server_identifier": Self.api, "permission_name": "read"]]]
            #expect(try await h.post("/api/v2/roles/\(id)/permissions", permissions, headers: reader).status == .forbidden)
            #expect(try await h.delete("/api/v2/roles/\(id)", headers: reader).status == .forbidden)
            #expect(try await h.post("/api/v2/roles/\(id)/permissions", permissions, headers: admin).status == .created)
            let listed = try ManagementAPITests.json(try await h.get("/api/v2/roles/\(id)/permissions", headers: reader))
            #expect((listed as? [[String: Any]])?.first?["permission_name"] as? String == "read")
        }
    }

    @Test("a user's roles and permissions: assigned, listed with their sources, and 404 for unknown users and roles")
    func userRolesAndPermissions() async throws {
        try await Harness.run { h in
            let admin = try await ManagementAPITests.token(h)
            _ = try await h.login(email: "ana@example.com")
            let user = "email%7C" + (try await h.sesame.storage.listUsers(limit: 1, offset: 0)[0].id)
            _ = try await h.post(
                "/api/v2/resource-servers", ["identifier": Self.api, "scopes": [["value": "read"], ["value": "write"]]],
                headers: admin)
            let role = try #require(
                try ManagementAPITests.json(try await h.post("/api/v2/roles", ["name": "reader"], headers: admin))
                    as? [String: Any])
            let id = try #require(role["id"] as? String)
            let read = ["permissions": [["resource_server_identifier": Self.api, "permission_name": "read"]]]
            _ = try await h.post("/api/v2/roles/\(id)/permissions", read, headers: admin)
            #expect(try await h.post("/api/v2/users/\(user)/roles", ["roles": [id]], headers: admin).status == .noContent)
            #expect(try await h.post("/api/v2/users/\(user)/permissions", read, headers: admin).status == .created)
            let held = try ManagementAPITests.json(try await h.get("/api/v2/users/\(user)/permissions", headers: admin))
            let sources = ((held as? [[String: Any]])?.first?["sources"] as? [[String: Any]])?.map {
                $0["source_type"] as? String
            }
            #expect(sources == ["DIRECT", "ROLE"])
            #expect(try await h.post("/api/v2/users/email%7Cnobody/roles", ["roles": [id]], headers: admin).status == .notFound)
            #expect(try await h.post("/api/v2/users/\(user)/roles", ["roles": ["rol_none"]], headers: admin).status == .notFound)
            let undefined = ["permissions": [["resource_server_identifier": Self.api, "permission_name": "admin"]]]
            #expect(try await h.post("/api/v2/users/\(user)/permissions", undefined, headers: admin).status == .badRequest)
            let page = try ManagementAPITests.json(try await h.get("/api/v2/roles/\(id)/users?take=1", headers: admin))
            #expect(((page as? [String: Any])?["users"] as? [[String: Any]])?.count == 1)
        }
    }
}
