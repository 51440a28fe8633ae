import Hummingbird
import SesameCore

/// The four routes Auth0 gives what a user holds (sessions, refresh tokens): list and end the
/// user's at `/api/v2/users/{id}/<kind>`, read and end one at `/api/v2/<kind>/{id}`. Each kind
/// supplies its scopes and its Core calls, so the authorization and the answers are written once.
struct UserHeldRoutes<Listing: Encodable & Sendable, Item: Encodable & Sendable>: Sendable {
    /// The path segment, `sessions` or `refresh-tokens`.
    let kind: String
    let adminTokens: AdminTokens
    let readScope: ManagementScope
    let deleteScope: ManagementScope
    /// The user's live ones, newest first, in the kind's list body.
    let list: @Sendable (_ userID: String) async throws -> Listing
    let endAll: @Sendable (_ userID: String) async throws -> Void
    let read: @Sendable (_ id: String) async throws -> Item
    let end: @Sendable (_ id: String) async throws -> Void

    func register(on router: Router<SesameRequestContext>) {
        router.get("/api/v2/users/:id/\(kind)") { request, context in
            try await authorize(request, readScope)
            return try Responses.json(try await list(try ManagementController.userID(context)), noStore: true)
        }
        router.delete("/api/v2/users/:id/\(kind)") { request, context in
            try await authorize(request, deleteScope)
            try await endAll(try ManagementController.userID(context))
            return Response(status: .accepted)
        }
        router.get("/api/v2/\(kind)/:id") { request, context in
            try await authorize(request, readScope)
            return try Responses.json(try await read(context.parameters.get("id") ?? ""), noStore: true)
        }
        router.delete("/api/v2/\(kind)/:id") { request, context in
            try await authorize(request, deleteScope)
            try await end(context.parameters.get("id") ?? "")
            return Response(status: .accepted)
        }
    }

    private func authorize(_ request: Request, _ scope: ManagementScope) async throws {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: scope)
    }
}
