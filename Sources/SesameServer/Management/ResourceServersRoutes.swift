import Foundation
import Hummingbird
import SesameAPI
public import SesameCore
import SesameParsers

/// `/api/v2/resource-servers`: the APIs an `audience` may name, in Auth0's shape, through
/// ``ResourceServerAdministration``.
struct ResourceServersRoutes {
    let adminTokens: AdminTokens
    let apis: ResourceServerAdministration

    func register(on router: Router<SesameRequestContext>) {
        router.get("/api/v2/resource-servers", use: list)
        router.post("/api/v2/resource-servers", use: create)
        router.get("/api/v2/resource-servers/:id", use: get)
        router.patch("/api/v2/resource-servers/:id", use: update)
        router.delete("/api/v2/resource-servers/:id", use: delete)
    }

    /// The fields a body may carry; `identifier` only on create.
    static let fields: Set<String> = [
        "name", "scopes", "token_lifetime", "token_lifetime_for_web", "signing_alg", "enforce_policies", "token_dialect",
        "allow_offline_access",
    ]

    /// Every API (filtered by `identifiers`); with `include_totals=true` a page in Auth0's shape.
    @Sendable func list(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readResourceServers)
        let page = try ManagementPage(request)
        let wanted = request.uri.queryParameters.getAll("identifiers")
        let all = try await apis.list(includingSystem: true).filter { wanted.isEmpty || wanted.contains($0.identifier) }
        return try page.response(all.map { body($0) }, key: "resource_servers")
    }

    @Sendable func get(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readResourceServers)
        return try Responses.json(body(try await apis.api(Self.id(context))), noStore: true)
    }

    @Sendable func create(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .createResourceServers)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        try body.refuseUnknown(Self.fields.union(["identifier"]))
        guard let identifier = try body.string("identifier") else { throw SesameError.invalidRequest("identifier is required.") }
        let api = try await apis.create(identifier: identifier, try Self.changes(body))
        return try Responses.json(ResourceServerBody(api), status: .created, noStore: true)
    }

    @Sendable func update(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .updateResourceServers)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        try body.refuseUnknown(Self.fields)
        let api = try await apis.update(Self.id(context), try Self.changes(body))
        return try Responses.json(ResourceServerBody(api), noStore: true)
    }

    @Sendable func delete(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .deleteResourceServers)
        try await apis.delete(Self.id(context))
        return Response(status: .noContent)
    }

    /// `api` in Auth0's shape, marked when it is the system API.
    private func body(_ api: ResourceServer) -> ResourceServerBody {
        ResourceServerBody(api, isSystem: apis.isSystem(api))
    }

    /// The `{id}` path parameter, percent-decoded (Auth0 also takes the identifier there).
    static func id(_ context: SesameRequestContext) -> String {
        let raw = context.parameters.get("id") ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    static func changes(_ body: RequestParameters) throws -> ResourceServerChanges {
        let dialect = try body.string("token_dialect").map { value in
            guard let dialect = TokenDialect(rawValue: value) else {
                throw SesameError.invalidRequest("token_dialect must be access_token or access_token_authz.")
            }
            return dialect
        }
        let scopes = try body.objects("scopes")?.map { scope in
            try scope.refuseUnknown(["value", "description"])
            guard let value = try scope.string("value") else { throw SesameError.invalidRequest("Each scope needs a value.") }
            return ResourceServerScope(value: value, description: try scope.string("description"))
        }
        return ResourceServerChanges(
            name: try body.string("name"), scopes: scopes, tokenLifetime: try body.int("token_lifetime"),
            tokenLifetimeForWeb: try body.int("token_lifetime_for_web"), signingAlg: try body.string("signing_alg"),
            enforcePolicies: try body.bool("enforce_policies"), tokenDialect: dialect,
            allowOfflineAccess: try body.bool("allow_offline_access"))
    }
}

/// An API in Auth0's shape.
public struct ResourceServerBody: Codable, Sendable, Equatable {
    var id, name, identifier: String
    var scopes: [ScopeBody]
    var tokenLifetime, tokenLifetimeForWeb: Int
    var signingAlg: String
    var enforcePolicies: Bool
    var tokenDialect: String
    var allowOfflineAccess: Bool
    /// Auth0's own Management API is a system API; every stored one is not.
    var isSystem = false

    struct ScopeBody: Codable, Sendable, Equatable {
        var value: String
        var description: String?
    }

    enum CodingKeys: String, CodingKey {
        case id, name, identifier, scopes
        case tokenLifetime = "token_lifetime", tokenLifetimeForWeb = "token_lifetime_for_web", signingAlg = "signing_alg"
        case enforcePolicies = "enforce_policies", tokenDialect = "token_dialect"
        case allowOfflineAccess = "allow_offline_access", isSystem = "is_system"
    }

    /// The API in Auth0's shape.
    public init(_ api: ResourceServer, isSystem: Bool = false) {
        self.isSystem = isSystem
        (id, name, identifier) = (api.id, api.name, api.identifier)
        scopes = api.scopes.map { ScopeBody(value: $0.value, description: $0.description) }
        (tokenLifetime, tokenLifetimeForWeb, signingAlg) = (api.tokenLifetime, api.tokenLifetimeForWeb, api.signingAlg)
        (enforcePolicies, tokenDialect, allowOfflineAccess) =
            (api.enforcePolicies, api.tokenDialect.rawValue, api.allowOfflineAccess)
    }
}
