import Hummingbird
import SesameCore

/// The four handlers Auth0 gives what a user holds (sessions, refresh tokens): list and end the
/// user's at `/api/v2/users/{id}/<kind>`, read and end one at `/api/v2/<kind>/{id}`. Each kind
/// supplies its scopes and its Core calls, so the authorization and the answers are written
/// once; each registers the handlers under its own paths, written out where routes are read.
struct UserHeldRoutes<Listing: Encodable & Sendable, Item: Encodable & Sendable>: Sendable {
    let adminTokens: AdminTokens
    let readScope: ManagementScope
    let deleteScope: ManagementScope
    /// The user's live ones, newest first, in the kind's list body.
    let list: @Sendable (_ userID: String) async throws -> Listing
    let endAll: @Sendable (_ userID: String) async throws -> Void
    let read: @Sendable (_ id: String) async throws -> Item
    let end: @Sendable (_ id: String) async throws -> Void

    /// `GET /api/v2/users/{id}/<kind>`.
    @Sendable func userList(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await authorize(request, readScope)
        return try Responses.json(try await list(try ManagementController.userID(context)), noStore: true)
    }

    /// `DELETE /api/v2/users/{id}/<kind>`.
    @Sendable func userEndAll(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await authorize(request, deleteScope)
        try await endAll(try ManagementController.userID(context))
        return Response(status: .accepted)
    }

    /// `GET /api/v2/<kind>/{id}`.
    @Sendable func one(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await authorize(request, readScope)
        return try Responses.json(try await read(context.parameters.get("id") ?? ""), noStore: true)
    }

    /// `DELETE /api/v2/<kind>/{id}`.
    @Sendable func endOne(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await authorize(request, deleteScope)
        try await end(context.parameters.get("id") ?? "")
        return Response(status: .accepted)
    }

    private func authorize(_ request: Request, _ scope: ManagementScope) async throws {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: scope)
    }
}
