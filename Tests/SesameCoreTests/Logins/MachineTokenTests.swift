import Foundation
import SesameCore
import SesameStorageConformance
import Testing

/// Machine-to-machine applications: `client_credentials`, client grants and the management
/// tokens they give, through the Core services alone.
@Suite("Core: machine-to-machine tokens")
struct MachineTokenTests {
    static let audience = CoreWorld.issuer + "api/v2/"

    /// A machine application with a client grant of `scope` for the Management API.
    static func machine(_ world: CoreWorld, scope: [String]) async throws -> (Application, ClientGrant) {
        let app = try await world.sesame.applications.create(name: "Backend", type: .nonInteractive)
        let grant = try await world.sesame.clientGrants.create(clientID: app.clientID, audience: audience, scope: scope)
        return (app, grant)
    }

    @Test("client_credentials gives an RS256 JWT as Auth0's, with the grant's scopes, accepted on /api/v2 for them")
    func machineToken() async throws {
        try await CoreWorld.run { world in
            let (app, _) = try await Self.machine(world, scope: ["read:users", "read:logs"])
            #expect(app.clientSecret != nil && app.grantTypes == [GrantType.clientCredentials])
            let response = try await world.sesame.machineTokens.issue(for: app, audience: Self.audience, scope: nil)
            let claims = try await world.sesame.keys.signer().verify(response.accessToken, as: MachineTokenClaims.self)
            #expect(claims.sub == app.clientID + "@clients" && claims.azp == app.clientID && claims.aud == Self.audience)
            #expect(
                claims.gty == "client-credentials" && claims.scope == "read:users read:logs" && claims.iss == CoreWorld.issuer)
            #expect(claims.exp - claims.iat == Int64(response.expiresIn))
            let admin = try await world.sesame.adminTokens.authorize(bearerToken: response.accessToken, for: .readUsers)
            #expect(admin.scopes == ["read:users", "read:logs"])
            let denied = try await refusal {
                _ = try await world.sesame.adminTokens.authorize(bearerToken: response.accessToken, for: .deleteUsers)
            }
            #expect(denied.code == .insufficientScope)
        }
    }

    /// Attack: a machine client asks for a scope its client grant does not allow, to get a
    /// token stronger than the operator granted.
    @Test("a machine token asking for a scope its grant does not allow is refused")
    func machineTokenAskingForScopeItsGrantDoesNotAllow() async throws {
        try await CoreWorld.run { world in
            let (app, _) = try await Self.machine(world, scope: ["read:users"])
            let refused = try await refusal {
                _ = try await world.sesame.machineTokens.issue(
                    for: app, audience: Self.audience, scope: "read:users delete:users")
            }
            #expect(refused.code == .accessDenied && refused.message == "Client has not been granted scopes: delete:users")
        }
    }

    /// Attack: a machine client without a client grant, or asking for another audience, tries
    /// to get a management token anyway.
    @Test("no client grant, or an unknown audience, is access_denied as Auth0 says it")
    func noGrantOrUnknownAudience() async throws {
        try await CoreWorld.run { world in
            let app = try await world.sesame.applications.create(name: "Backend", type: .nonInteractive)
            let noGrant = try await refusal {
                _ = try await world.sesame.machineTokens.issue(for: app, audience: Self.audience, scope: nil)
            }
            #expect(noGrant.message == "Client has not been authorized to access resource server \(Self.audience)")
            let unknown = try await refusal {
                _ = try await world.sesame.machineTokens.issue(for: app, audience: "https://api.example.com/", scope: nil)
            }
            #expect(unknown.code == .accessDenied && unknown.message == "Service not found: https://api.example.com/")
        }
    }

    /// Attack: a public client (whose id anyone can read from the app) configured for
    /// client_credentials would let anyone mint management tokens.
    @Test("a public application cannot be given client_credentials; a login application cannot use it")
    func publicClientCannotUseClientCredentials() async throws {
        try await CoreWorld.run { world in
            let refused = try await refusal {
                _ = try await world.sesame.applications.update(world.application.clientID) {
                    $0.grantTypes.append(GrantType.clientCredentials)
                }
            }
            #expect(refused.kind == .badRequest)
            let noGrant = try await refusal {
                _ = try await world.sesame.machineTokens.issue(for: world.application, audience: Self.audience, scope: nil)
            }
            #expect(noGrant.code == .unauthorizedClient)
        }
    }

    /// Attack: a machine token with no scope at all taken for a management token with every
    /// scope (a `sadm_…` token made without scopes has them all).
    @Test("a machine token whose grant allows no scope can do nothing")
    func machineTokenWithoutScopesIsNoAllPowerfulToken() async throws {
        try await CoreWorld.run { world in
            let (app, _) = try await Self.machine(world, scope: [])
            let token = try await world.sesame.machineTokens.issue(for: app, audience: Self.audience, scope: nil).accessToken
            for scope in ManagementScope.allCases {
                let refused = try await refusal {
                    _ = try await world.sesame.adminTokens.authorize(bearerToken: token, for: scope)
                }
                #expect(refused.code == .insufficientScope, "\(scope)")
            }
        }
    }

    /// Attack: a token outliving the operator's decision: the grant narrowed or deleted.
    @Test("narrowing a grant narrows its tokens at once; deleting it ends them")
    func grantChangesReachIssuedTokens() async throws {
        try await CoreWorld.run { world in
            let (app, grant) = try await Self.machine(world, scope: ["read:users", "read:logs"])
            let token = try await world.sesame.machineTokens.issue(for: app, audience: Self.audience, scope: nil).accessToken
            _ = try await world.sesame.clientGrants.update(grant.id, scope: ["read:logs"])
            let narrowed = try await refusal {
                _ = try await world.sesame.adminTokens.authorize(bearerToken: token, for: .readUsers)
            }
            #expect(narrowed.code == .insufficientScope)
            try await world.sesame.clientGrants.delete(grant.id)
            let ended = try await refusal { _ = try await world.sesame.adminTokens.authorize(bearerToken: token, for: .readLogs) }
            #expect(ended.code == .invalidToken)
        }
    }

    /// Attack: a leaked secret keeps working after the operator rotated it.
    @Test("rotating the secret ends the old one at once")
    func rotatedSecret() async throws {
        try await CoreWorld.run { world in
            let (app, _) = try await Self.machine(world, scope: ["read:users"])
            let rotated = try await world.sesame.applications.rotateSecret(app.clientID)
            #expect(rotated.clientSecret != nil && rotated.clientSecret != app.clientSecret)
            let old = try await refusal {
                _ = try await world.sesame.clients.authenticate(clientID: app.clientID, clientSecret: app.clientSecret)
            }
            #expect(old.code == .invalidClient)
            _ = try await world.sesame.clients.authenticate(clientID: app.clientID, clientSecret: rotated.clientSecret)
        }
    }

    /// Attack: a secret sent another way than the application is set to accept (a body secret
    /// logged by a proxy, when the operator required Basic).
    @Test("token_endpoint_auth_method is enforced when set")
    func authMethodEnforced() async throws {
        try await CoreWorld.run { world in
            let app = try await world.sesame.applications.create(name: "Backend", type: .nonInteractive) {
                $0.authMethod = .clientSecretBasic
            }
            let refused = try await refusal {
                _ = try await world.sesame.clients.authenticate(
                    clientID: app.clientID, clientSecret: app.clientSecret, presentedWith: .clientSecretPost)
            }
            #expect(refused.code == .invalidClient)
            _ = try await world.sesame.clients.authenticate(
                clientID: app.clientID, clientSecret: app.clientSecret, presentedWith: .clientSecretBasic)
        }
    }
}
