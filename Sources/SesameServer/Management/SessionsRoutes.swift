import Foundation
import Hummingbird
import SesameAPI
import SesameCore

/// Browser sessions in Auth0's Management API shape: `GET|DELETE /api/v2/users/{id}/sessions`
/// and `GET|DELETE /api/v2/sessions/{id}`, through ``SessionAdministration`` (audited as every
/// session ended by an administrator).
struct SessionsRoutes: Sendable {
    let adminTokens: AdminTokens
    let sessions: SessionAdministration

    func register(on router: Router<SesameRequestContext>) {
        let routes = UserHeldRoutes(
            adminTokens: adminTokens, readScope: .readSessions, deleteScope: .deleteSessions,
            list: { ManagementSessionsBody(sessions: try await sessions.list(userID: $0).map(body)) },
            endAll: { try await sessions.revokeAll(userID: $0) },
            read: { body(try await sessions.session(id: $0)) },
            end: { try await sessions.revoke(id: $0, userID: nil) }
        )
        router.get("/api/v2/users/:id/sessions", use: routes.userList)
        router.delete("/api/v2/users/:id/sessions", use: routes.userEndAll)
        router.get("/api/v2/sessions/:id", use: routes.one)
        router.delete("/api/v2/sessions/:id", use: routes.endOne)
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

    var id, userID: String
    var createdAt, updatedAt, authenticatedAt, lastInteractedAt, idleExpiresAt, expiresAt: String
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
