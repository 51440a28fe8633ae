import Foundation
import SesameCore
import SesameStorageConformance
import Testing

/// APIs, roles and permissions, and the RFC 9068 access tokens a login for an API gets,
/// through the Core services alone.
@Suite("Core: API access tokens and permissions")
struct APIAccessTokenTests {
    static let api = "https://api.example.com"

    /// An API defining `read` and `write`, with `changes` applied.
    static func api(_ world: CoreWorld, _ changes: ResourceServerChanges = ResourceServerChanges()) async throws
        -> ResourceServer
    {
        var changes = changes
        changes.scopes = [ResourceServerScope(value: "read"), ResourceServerScope(value: "write")]
        return try await world.sesame.resourceServers.create(identifier: api, changes)
    }

    /// A code login for `email` asking for `scope` with `audience` set to the API; the token's claims.
    static func signIn(
        _ world: CoreWorld, _ email: String, scope: String = "openid read write offline_access", audience: String = api
    ) async throws -> (TokenResponse, AccessTokenClaims) {
        var request = world.request(scope)
        request.audience = audience
        let response = try await world.sesame.passwordless.finish(
            PasswordlessCredentials(connection: "email", username: email, code: try await world.code(for: email)),
            request: request, ip: nil)
        return (response, try await world.sesame.keys.signer().verify(response.accessToken, as: AccessTokenClaims.self))
    }

    /// A role granting `permissions` on the API, assigned to the user `email` (who signs in first).
    static func role(_ world: CoreWorld, granting permissions: [String], to email: String) async throws -> Role {
        let role = try await world.sesame.roles.create(name: "role-\(permissions.joined())", description: nil)
        try await world.sesame.roles.grant(
            permissions.map { Permission(resourceServerIdentifier: api, permissionName: $0) }, to: .role(role.id))
        let user = try #require(try await world.sesame.storage.user(connection: "email", identifier: email))
        try await world.sesame.roles.assign([role.id], toUser: user.userID)
        return role
    }

    @Test("without policies every API scope asked for is granted; RFC 9068 claims; the API's lifetime")
    func rbacOff() async throws {
        try await CoreWorld.run { world in
            _ = try await Self.api(world, ResourceServerChanges(tokenLifetime: 600))
            let (response, claims) = try await Self.signIn(world, "ana@example.com")
            #expect(claims.scope == "openid read write" && response.scope == claims.scope, "offline_access is not allowed")
            #expect(response.refreshToken == nil, "the API allows no refresh tokens")
            #expect(claims.aud == [Self.api, CoreWorld.issuer + "userinfo"] && claims.clientID == world.application.clientID)
            #expect(claims.exp - claims.iat == 600 && response.expiresIn == 600 && claims.jti != nil)
            #expect(claims.permissions == nil, "the access_token dialect names no permissions")
            let (_, bare) = try await Self.signIn(world, "ana@example.com", scope: "read")
            #expect(bare.aud == [Self.api], "/userinfo only when openid was asked")
        }
    }

    /// Attack: a user asks for an API permission their roles do not grant, hoping the API
    /// trusts the scope it finds in the token.
    @Test("with policies a user asking for a permission no role grants does not get it")
    func askingForUngrantedPermission() async throws {
        try await CoreWorld.run { world in
            _ = try await Self.api(world, ResourceServerChanges(enforcePolicies: true, tokenDialect: .accessTokenAuthz))
            _ = try await world.signIn("ana@example.com")
            _ = try await Self.role(world, granting: ["read"], to: "ana@example.com")
            let (_, claims) = try await Self.signIn(world, "ana@example.com")
            #expect(claims.scope == "openid read", "write is dropped")
            #expect(claims.permissions == ["read"], "the authz dialect names what the roles grant")
            let (_, stranger) = try await Self.signIn(world, "bo@example.com")
            #expect(stranger.scope == "openid" && stranger.permissions == [])
        }
    }

    /// Attack: a user whose role was taken away keeps refreshing a token issued while they had it.
    @Test("a refresh after the role is removed loses the role's permissions")
    func refreshAfterRoleRemoved() async throws {
        try await CoreWorld.run { world in
            _ = try await Self.api(
                world, ResourceServerChanges(enforcePolicies: true, tokenDialect: .accessTokenAuthz, allowOfflineAccess: true))
            _ = try await world.signIn("ana@example.com")
            let role = try await Self.role(world, granting: ["read", "write"], to: "ana@example.com")
            let (response, claims) = try await Self.signIn(world, "ana@example.com")
            #expect(claims.permissions == ["read", "write"] && response.refreshToken != nil)
            try await world.sesame.roles.delete(role.id)
            let refreshed = try await world.sesame.tokens.refresh(
                response.refreshToken, application: world.application, scope: nil)
            let after = try await world.sesame.keys.signer().verify(refreshed.accessToken, as: AccessTokenClaims.self)
            #expect(after.aud.first == Self.api, "the refresh keeps the audience")
            #expect(after.permissions == [] && after.scope == "openid offline_access")
        }
    }

    /// Attack: a client names an audience no API has, to get a token some service might accept.
    @Test("an unknown audience is access_denied Service not found, for logins and machine clients")
    func unknownAudience() async throws {
        try await CoreWorld.run { world in
            _ = try await world.signIn("ana@example.com")
            let refused = try await refusal { _ = try await Self.signIn(world, "ana@example.com", audience: "https://evil") }
            #expect(refused.code == .accessDenied && refused.message == "Service not found: https://evil")
        }
    }

    /// Attack: a browser login names an audience no API has; the page must not run a login
    /// whose token could only be refused, nor hand a code for it.
    @Test("/authorize with an unknown audience answers the callback access_denied Service not found")
    func authorizeUnknownAudience() async throws {
        try await CoreWorld.run { world in
            let outcome = try await world.sesame.redirectLogin.authorize(
                clientID: world.application.clientID, redirectURI: CoreWorld.callback,
                parameters: AuthorizeParameters(responseType: "code", state: "s", audience: "https://evil"), session: nil,
                ip: nil)
            guard case .respond(let response) = outcome else { throw CoreWorldError("the page was shown") }
            #expect(response.parameters.first { $0.0 == "error" }?.1 == "access_denied")
            #expect(response.parameters.first { $0.0 == "error_description" }?.1 == "Service not found: https://evil")
        }
    }

    @Test("a machine client gets an at+jwt token for an API through its client grant")
    func machineClient() async throws {
        try await CoreWorld.run { world in
            _ = try await Self.api(world, ResourceServerChanges(tokenDialect: .accessTokenAuthz))
            let app = try await world.sesame.applications.create(name: "Backend", type: .nonInteractive)
            _ = try await world.sesame.clientGrants.create(clientID: app.clientID, audience: Self.api, scope: ["read"])
            let response = try await world.sesame.machineTokens.issue(for: app, audience: Self.api, scope: nil)
            let claims = try await world.sesame.keys.signer().verify(response.accessToken, as: AccessTokenClaims.self)
            #expect(claims.sub == app.clientID + "@clients" && claims.aud == [Self.api] && claims.gty == "client-credentials")
            #expect(claims.scope == "read" && claims.permissions == ["read"] && response.expiresIn == 86400)
            let undefined = try await refusal {
                _ = try await world.sesame.clientGrants.create(clientID: app.clientID, audience: Self.api, scope: ["x"])
            }
            #expect(undefined.kind == .badRequest, "a grant of a scope the API does not define")
        }
    }

    @Test("the audiences setting keeps working: each is stored as an API at start")
    func configuredAudiences() async throws {
        try await CoreWorld.run(configure: { $0.audiences = [Self.api] }) { world in
            let stored = try await world.sesame.resourceServers.list()
            #expect(stored.map(\.identifier) == [Self.api] && stored[0].allowOfflineAccess && stored[0].tokenLifetime == 3600)
            let (response, claims) = try await Self.signIn(world, "ana@example.com", scope: "openid custom offline_access")
            #expect(claims.scope == "openid custom offline_access" && response.refreshToken != nil)
        }
    }

    /// Attack: an operator's typo or an attacker-controlled import gives a permission no API
    /// defines, or one on the Management API itself.
    @Test("a permission the API does not define, or on an unknown API, is refused")
    func undefinedPermission() async throws {
        try await CoreWorld.run { world in
            _ = try await Self.api(world)
            let role = try await world.sesame.roles.create(name: "r", description: nil)
            let undefined = try await refusal {
                try await world.sesame.roles.grant(
                    [Permission(resourceServerIdentifier: Self.api, permissionName: "admin")], to: .role(role.id))
            }
            #expect(undefined.kind == .badRequest)
            let unknown = try await refusal {
                try await world.sesame.roles.grant(
                    [Permission(resourceServerIdentifier: CoreWorld.issuer + "api/v2/", permissionName: "read:users")],
                    to: .role(role.id))
            }
            #expect(unknown.kind == .notFound)
            let management = try await refusal {
                _ = try await world.sesame.resourceServers.create(
                    identifier: CoreWorld.issuer + "api/v2/", ResourceServerChanges())
            }
            #expect(management.kind == .conflict)
        }
    }
}
