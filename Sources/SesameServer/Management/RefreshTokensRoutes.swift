import Foundation
import Hummingbird
import SesameAPI
import SesameCore

/// Refresh tokens in Auth0's Management API shape: `GET|DELETE /api/v2/users/{id}/refresh-tokens`
/// and `GET|DELETE /api/v2/refresh-tokens/{id}`, through ``RefreshTokenAdministration``. A
/// token's id is its login's (family's) id, which rotation keeps.
struct RefreshTokensRoutes {
    let adminTokens: AdminTokens
    let refreshTokens: RefreshTokenAdministration

    func register(on router: Router<SesameRequestContext>) {
        router.get("/api/v2/users/:id/refresh-tokens", use: userTokens)
        router.delete("/api/v2/users/:id/refresh-tokens", use: revokeUserTokens)
        router.get("/api/v2/refresh-tokens/:id", use: token)
        router.delete("/api/v2/refresh-tokens/:id", use: revoke)
    }

    /// The user's live refresh tokens, newest first, as Auth0 lists them: `{tokens: […]}`.
    @Sendable func userTokens(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readRefreshTokens)
        let tokens = try await refreshTokens.list(userID: try ManagementController.userID(context))
        return try Responses.json(ManagementRefreshTokensBody(tokens: tokens.map(ManagementRefreshTokenBody.init)), noStore: true)
    }

    @Sendable func revokeUserTokens(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .deleteRefreshTokens)
        try await refreshTokens.revokeAll(userID: try ManagementController.userID(context))
        return Response(status: .accepted)
    }

    @Sendable func token(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readRefreshTokens)
        let token = try await refreshTokens.token(context.parameters.get("id") ?? "")
        return try Responses.json(ManagementRefreshTokenBody(token), noStore: true)
    }

    @Sendable func revoke(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .deleteRefreshTokens)
        try await refreshTokens.revoke(context.parameters.get("id") ?? "")
        return Response(status: .accepted)
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

    var id: String
    var userID: String
    var clientID: String
    var createdAt: String
    var expiresAt: String
    var lastExchangedAt: String
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
