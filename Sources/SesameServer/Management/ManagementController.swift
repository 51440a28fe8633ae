import Foundation
import HTTPTypes
import Hummingbird
import SesameAPI
import SesameCore
import SesameParsers

/// Auth0's Management API v2 for users, applications and the audit trail, with management
/// tokens (`sesame admin tokens create --scope …`). Every change goes through the Core
/// services the CLI uses, so each rule and audit event lives in one place.
///
/// - `GET /api/v2/users` (`page`, `per_page`, `include_totals`, `q`), `POST /api/v2/users`,
///   `GET /api/v2/users-by-email`
/// - `GET|PATCH|DELETE /api/v2/users/{id}`, `GET /api/v2/users/{id}/logs`
/// - `GET|POST /api/v2/clients`, `GET|PATCH|DELETE /api/v2/clients/{id}`
/// - `GET /api/v2/logs`, `GET /api/v2/logs/{id}` (``LogsRoutes``), `/api/v2/client-grants`
///   (``ClientGrantsRoutes``), `GET /api/v2/connections` (``ConnectionsRoutes``)
/// - `/api/v2/resource-servers` (``ResourceServersRoutes``), `/api/v2/roles` and the roles and
///   permissions of users (``RolesRoutes``), `/api/v2/jobs` (``JobsRoutes``)
///
/// `PATCH /api/v2/users/{id}` also takes the user's own access token with the scope
/// `update:current_user_metadata`, for their own `user_metadata` only.
struct ManagementController {
    let adminTokens: AdminTokens
    let users: UserAdministration
    let applications: ApplicationAdministration
    let auditTrail: AuditTrail
    let tokens: TokenService
    let clientGrants: ClientGrantAdministration
    let connections: Registry
    let sessions: SessionAdministration
    let refreshTokens: RefreshTokenAdministration
    let resourceServers: ResourceServerAdministration
    let roles: RoleAdministration
    let jobs: UserJobs

    func register(on router: Router<SesameRequestContext>) {
        router.get("/api/v2/users", use: listUsers)
        router.post("/api/v2/users", use: createUser)
        router.get("/api/v2/users-by-email", use: usersByEmail)
        router.get("/api/v2/users/:id", use: getUser)
        router.patch("/api/v2/users/:id", use: patchUser)
        router.delete("/api/v2/users/:id", use: deleteUser)
        LogsRoutes(adminTokens: adminTokens, auditTrail: auditTrail).register(on: router)
        ClientsRoutes(adminTokens: adminTokens, applications: applications).register(on: router)
        ClientGrantsRoutes(adminTokens: adminTokens, grants: clientGrants).register(on: router)
        ConnectionsRoutes(adminTokens: adminTokens, connections: connections).register(on: router)
        SessionsRoutes(adminTokens: adminTokens, sessions: sessions).register(on: router)
        RefreshTokensRoutes(adminTokens: adminTokens, refreshTokens: refreshTokens).register(on: router)
        ResourceServersRoutes(adminTokens: adminTokens, apis: resourceServers).register(on: router)
        RolesRoutes(adminTokens: adminTokens, roles: roles, apis: resourceServers).register(on: router)
        JobsRoutes(adminTokens: adminTokens, jobs: jobs).register(on: router)
    }

    @Sendable func listUsers(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readUsers)
        let page = try ManagementPage(request)
        let query = request.uri.queryParameters["q"].map(String.init)
        let (found, total) = try await users.search(UserSearch(query: query, limit: page.perPage, offset: page.offset))
        let bodies = found.map(ManagementUserBody.init)
        guard page.includeTotals else { return try Responses.json(bodies, noStore: true) }
        return try Responses.json(
            ManagementUserPageBody(start: page.offset, limit: page.perPage, total: total, users: bodies), noStore: true)
    }

    @Sendable func usersByEmail(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readUsers)
        guard let email = request.uri.queryParameters["email"].map(String.init), !email.isEmpty else {
            throw SesameError.invalidRequest("Query parameter email is required.")
        }
        let (found, _) = try await users.search(UserSearch(match: .email(email), limit: 100))
        return try Responses.json(found.map(ManagementUserBody.init), noStore: true)
    }

    @Sendable func getUser(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readUsers)
        return try Responses.json(ManagementUserBody(try await users.user(try Self.userID(context))), noStore: true)
    }

    @Sendable func patchUser(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let userID = try Self.userID(context)
        let selfService = try await caller(of: request)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        let changes = try Self.changes(body)
        let user =
            if let selfService {
                try await users.updateOwn(userID, changes, by: selfService)
            } else {
                try await users.update(userID, changes)
            }
        return try Responses.json(ManagementUserBody(user), noStore: true)
    }

    @Sendable func deleteUser(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .deleteUsers)
        try await users.delete(try Self.userID(context))
        return Response(status: .noContent)
    }

    /// Who may change a user, checked before the body is read: nil for a management token
    /// with `update:users` (anything), or a user's own access token that Core's self-service
    /// rule admits (their own `user_metadata` only, once their address is proven).
    private func caller(of request: Request) async throws -> AccessGrant? {
        let presented = request.presentedAccessToken
        // A management token is never DPoP-bound; a user's token may be.
        if presented.scheme == .bearer {
            guard let token = request.bearerToken, try await !adminTokens.isManagementToken(token) else {
                try await adminTokens.authorize(bearerToken: request.bearerToken, for: .updateUsers)
                return nil
            }
        }
        let grant = try await tokens.authenticate(presented)
        try users.authorizeSelfService(grant)
        return grant
    }

    /// The `{id}` path parameter, percent-decoded (`email%7C5f…` is `email|5f…`).
    static func userID(_ context: SesameRequestContext) throws -> String {
        let raw = context.parameters.get("id") ?? ""
        return raw.removingPercentEncoding ?? raw
    }
}

/// Auth0's paging parameters: `page` from 0, `per_page` 1 to 100 (default 50),
/// `include_totals`.
struct ManagementPage {
    var page = 0
    var perPage = 50
    var includeTotals = false

    var offset: Int { page * perPage }

    init(_ request: Request) throws {
        let query = request.uri.queryParameters
        if let text = query["page"] {
            guard let value = Int(text), value >= 0, value <= 100_000 else {
                throw SesameError.invalidRequest("page must be a whole number from 0.")
            }
            page = value
        }
        if let text = query["per_page"] {
            guard let value = Int(text), (1...100).contains(value) else {
                throw SesameError.invalidRequest("per_page must be from 1 to 100.")
            }
            perPage = value
        }
        if let text = query["include_totals"] {
            guard let value = Bool(String(text)) else {
                throw SesameError.invalidRequest("include_totals must be true or false.")
            }
            includeTotals = value
        }
    }
}

extension ManagementUserBody {
    /// A stored user in Auth0's shape.
    init(_ user: User) {
        self.init(
            userID: user.userID, name: user.name ?? user.identifier, nickname: user.nickname ?? user.identifier,
            picture: user.picture, createdAt: ISO8601.string(user.createdAt), updatedAt: ISO8601.string(user.updatedAt))
        (givenName, familyName) = (user.givenName, user.familyName)
        email = user.email
        emailVerified = user.email == nil ? nil : user.emailVerified
        phoneNumber = user.phoneNumber
        phoneVerified = user.phoneNumber == nil ? nil : user.phoneVerified
        lastLogin = user.lastLogin.map(ISO8601.string)
        loginsCount = user.loginsCount
        blocked = user.blocked
        userMetadata = user.userMetadata ?? [:]
        appMetadata = user.appMetadata ?? [:]
        // A user kept from another Auth0 connection names its provider, as their user_id does.
        var identity = Identity(
            connection: user.connection, userID: user.id, provider: user.provider ?? (user.connection == "sms" ? "sms" : "email"))
        identity.isSocial = !["auth0", "email", "sms"].contains(identity.provider)
        identities = [identity]
    }
}

extension ManagementPage {
    /// This page of `all`: a list, or with `include_totals=true` Auth0's page object with the
    /// items under `key` (`clients`, `client_grants`).
    func response<Item: Encodable & Sendable>(_ all: [Item], key: String) throws -> Response {
        let items = Array(all.dropFirst(offset).prefix(perPage))
        guard includeTotals else { return try Responses.json(items, noStore: true) }
        return try Responses.json(
            ManagementPageBody(start: offset, limit: perPage, total: all.count, key: key, items: items), noStore: true)
    }
}
