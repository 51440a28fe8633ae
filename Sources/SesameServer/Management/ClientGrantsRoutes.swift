import Foundation
import Hummingbird
import SesameAPI
import SesameCore
import SesameParsers

/// `/api/v2/client-grants`: which Management API scopes a machine-to-machine application's
/// `client_credentials` tokens carry, in Auth0's shape, through ``ClientGrantAdministration``.
struct ClientGrantsRoutes {
    let adminTokens: AdminTokens
    let grants: ClientGrantAdministration

    func register(on router: Router<SesameRequestContext>) {
        router.get("/api/v2/client-grants", use: list)
        router.post("/api/v2/client-grants", use: create)
        router.get("/api/v2/client-grants/:id", use: get)
        router.patch("/api/v2/client-grants/:id", use: update)
        router.delete("/api/v2/client-grants/:id", use: delete)
    }

    /// The grants, filtered by `client_id` and `audience`; a page with `include_totals=true`.
    @Sendable func list(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readClientGrants)
        let page = try ManagementPage(request)
        let query = request.uri.queryParameters
        let all = try await grants.list(
            clientID: query["client_id"].map(String.init), audience: query["audience"].map(String.init))
        return try page.response(all.map(ClientGrantBody.init), key: "client_grants")
    }

    @Sendable func get(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readClientGrants)
        return try Responses.json(ClientGrantBody(try await grants.grant(context.parameters.get("id") ?? "")), noStore: true)
    }

    @Sendable func create(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .createClientGrants)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        try body.refuseUnknown(["client_id", "audience", "scope"])
        guard let clientID = try body.string("client_id"), let audience = try body.string("audience") else {
            throw SesameError.invalidRequest("client_id and audience are required.")
        }
        let grant = try await grants.create(clientID: clientID, audience: audience, scope: try body.strings("scope") ?? [])
        return try Responses.json(ClientGrantBody(grant), status: .created, noStore: true)
    }

    @Sendable func update(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .updateClientGrants)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        try body.refuseUnknown(["scope"])
        guard let scope = try body.strings("scope") else { throw SesameError.invalidRequest("scope is required.") }
        let grant = try await grants.update(context.parameters.get("id") ?? "", scope: scope)
        return try Responses.json(ClientGrantBody(grant), noStore: true)
    }

    @Sendable func delete(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .deleteClientGrants)
        try await grants.delete(context.parameters.get("id") ?? "")
        return Response(status: .noContent)
    }
}

/// A client grant in Auth0's shape.
struct ClientGrantBody: Codable, Sendable, Equatable {
    var id: String
    var clientID: String
    var audience: String
    var scope: [String]

    enum CodingKeys: String, CodingKey {
        case id, audience, scope
        case clientID = "client_id"
    }

    init(_ grant: ClientGrant) {
        (id, clientID, audience, scope) = (grant.id, grant.clientID, grant.audience, grant.scope)
    }
}
