import Foundation
import Hummingbird
import SesameAPI
import SesameCore

/// Browser sessions in Auth0's Management API shape: `GET|DELETE /api/v2/users/{id}/sessions`
/// and `GET|DELETE /api/v2/sessions/{id}`, through ``SessionAdministration`` (audited as every
/// session ended by an administrator).
struct SessionsRoutes {
    let adminTokens: AdminTokens
    let sessions: SessionAdministration

    func register(on router: Router<SesameRequestContext>) {
        router.get("/api/v2/users/:id/sessions", use: userSessions)
        router.delete("/api/v2/users/:id/sessions", use: endUserSessions)
        router.get("/api/v2/sessions/:id", use: session)
        router.delete("/api/v2/sessions/:id", use: endSession)
    }

    /// The user's live sessions, newest first, as Auth0 lists them: `{sessions: […]}`.
    @Sendable func userSessions(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readSessions)
        let found = try await sessions.list(userID: try ManagementController.userID(context))
        return try Responses.json(ManagementSessionsBody(sessions: found.map(body)), noStore: true)
    }

    @Sendable func endUserSessions(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .deleteSessions)
        try await sessions.revokeAll(userID: try ManagementController.userID(context))
        return Response(status: .accepted)
    }

    @Sendable func session(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readSessions)
        return try Responses.json(body(try await sessions.session(id: context.parameters.get("id") ?? "")), noStore: true)
    }

    @Sendable func endSession(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .deleteSessions)
        try await sessions.revoke(id: context.parameters.get("id") ?? "", userID: nil)
        return Response(status: .accepted)
    }

    private func body(_ session: BrowserSession) -> ManagementSessionBody {
        ManagementSessionBody(session, idleExpiresAt: sessions.idleExpiry(of: session))
    }
}

/// A user's sessions, as Auth0 lists them.
struct ManagementSessionsBody: Encodable, Sendable {
    var sessions: [ManagementSessionBody]
}

/// A browser session in Auth0's shape (`SessionResponseContent`).
struct ManagementSessionBody: Encodable, Sendable {
    struct Device: Encodable, Sendable {
        var initialIP: String?
        var initialUserAgent: String?

        enum CodingKeys: String, CodingKey {
            case initialIP = "initial_ip", initialUserAgent = "initial_user_agent"
        }
    }

    struct Method: Encodable, Sendable {
        var name: String
        var timestamp: String
    }

    struct Authentication: Encodable, Sendable {
        var methods: [Method]
    }

    var id: String
    var userID: String
    var createdAt: String
    var updatedAt: String
    var authenticatedAt: String
    var lastInteractedAt: String
    var idleExpiresAt: String
    var expiresAt: String
    var device: Device
    var authentication: Authentication

    enum CodingKeys: String, CodingKey {
        case id, device, authentication
        case userID = "user_id", createdAt = "created_at", updatedAt = "updated_at", authenticatedAt = "authenticated_at"
        case lastInteractedAt = "last_interacted_at", idleExpiresAt = "idle_expires_at", expiresAt = "expires_at"
    }

    init(_ session: BrowserSession, idleExpiresAt: Date) {
        id = session.id
        userID = session.userID
        createdAt = ISO8601.string(session.createdAt)
        updatedAt = ISO8601.string(session.lastSeenAt)
        authenticatedAt = ISO8601.string(session.authTime)
        lastInteractedAt = ISO8601.string(session.lastSeenAt)
        self.idleExpiresAt = ISO8601.string(min(idleExpiresAt, session.expiresAt))
        expiresAt = ISO8601.string(session.expiresAt)
        device = Device(initialIP: session.ip, initialUserAgent: session.userAgent)
        authentication = Authentication(
            methods: session.methods.map { Method(name: $0, timestamp: ISO8601.string(session.authTime)) })
    }
}
