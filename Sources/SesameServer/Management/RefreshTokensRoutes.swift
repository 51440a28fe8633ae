import Foundation
import Hummingbird
import SesameAPI
import SesameCore

/// Refresh tokens in Auth0's Management API shape: `GET|DELETE /api/v2/users/{id}/refresh-tokens`
/// and `GET|DELETE /api/v2/refresh-tokens/{id}`, through ``RefreshTokenAdministration``. A
/// token's id is its login's (family's) id, which rotation keeps.
struct RefreshTokensRoutes: Sendable {
    let adminTokens: AdminTokens
    let refreshTokens: RefreshTokenAdministration

    func register(on router: Router<SesameRequestContext>) {
        let routes = UserHeldRoutes(
            adminTokens: adminTokens, readScope: .readRefreshTokens,
            deleteScope: .deleteRefreshTokens,
            list: {
                ManagementRefreshTokensBody(tokens: try await refreshTokens.list(userID: $0).map(ManagementRefreshTokenBody.init))
            },
            endAll: { try await refreshTokens.revokeAll(userID: $0) },
            read: { ManagementRefreshTokenBody(try await refreshTokens.token($0)) },
            end: { try await refreshTokens.revoke($0) }
        )
        router.get("/api/v2/users/:id/refresh-tokens", use: routes.userList)
        router.delete("/api/v2/users/:id/refresh-tokens", use: routes.userEndAll)
        router.get("/api/v2/refresh-tokens/:id", use: routes.one)
        router.delete("/api/v2/refresh-tokens/:id", use: routes.endOne)
    }
}

/// A user's refresh tokens, as Auth0 lists them.
struct ManagementRefreshTokensBody: Encodable, Sendable {
    var tokens: [ManagementRefreshTokenBody]
}

/// A refresh token in Auth0's shape (`RefreshTokenResponseContent`); never the token itself.
struct ManagementRefreshTokenBody: Encodable, Sendable {
    struct ResourceServer: Encodable, Sendable {
        var audience: String
        var scopes: String
    }

    var id, userID, clientID: String
    var createdAt, expiresAt, lastExchangedAt: String
    var rotating = true
    var resourceServers: [ResourceServer]

    enum CodingKeys: String, CodingKey {
        case id, rotating
        case userID = "user_id", clientID = "client_id", createdAt = "created_at", expiresAt = "expires_at"
        case lastExchangedAt = "last_exchanged_at", resourceServers = "resource_servers"
    }

    init(_ token: RefreshToken) {
        id = token.familyID
        userID = token.userID
        clientID = token.clientID
        createdAt = ISO8601.string(token.authTime)
        expiresAt = ISO8601.string(token.expiresAt)
        lastExchangedAt = ISO8601.string(token.createdAt)
        resourceServers = token.audience.map { [ResourceServer(audience: $0, scopes: token.scope)] } ?? []
    }
}
