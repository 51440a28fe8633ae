import Foundation
import Hummingbird
import SesameAPI
import SesameCore

/// `GET /api/v2/connections` and `GET /api/v2/connections/{id}`: the `email` and `sms`
/// connections in Auth0's shape, read through the ``Registry``.
struct ConnectionsRoutes {
    let adminTokens: AdminTokens
    let connections: Registry

    func register(on router: Router<SesameRequestContext>) {
        router.get("/api/v2/connections", use: list)
        router.get("/api/v2/connections/:id", use: get)
    }

    /// Every connection, or those of `strategy` or `name`; a page with `include_totals=true`.
    @Sendable func list(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readConnections)
        let query = request.uri.queryParameters
        let strategies = query.getAll("strategy").map { String($0) }
        let name = query["name"].map(String.init)
        let found = try await connections.connections().filter {
            (strategies.isEmpty || strategies.contains($0.strategy.rawValue)) && (name == nil || $0.name == name)
        }
        let bodies = found.map(ConnectionBody.init)
        guard query["include_totals"] == "true" else { return try Responses.json(bodies, noStore: true) }
        return try Responses.json(
            ManagementPageBody(start: 0, limit: bodies.count, total: bodies.count, key: "connections", items: bodies),
            noStore: true)
    }

    @Sendable func get(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readConnections)
        let id = context.parameters.get("id") ?? ""
        guard let connection = try await connections.connections().first(where: { $0.id == id }) else {
            throw SesameError(.notFound, .notFound, "No connection \(id).")
        }
        return try Responses.json(ConnectionBody(connection), noStore: true)
    }
}

/// A passwordless connection in Auth0's shape: its one-time-code policy under `options`.
struct ConnectionBody: Codable, Sendable, Equatable {
    struct Options: Codable, Sendable, Equatable {
        struct TOTP: Codable, Sendable, Equatable {
            var timeStep: Int
            var length: Int

            enum CodingKeys: String, CodingKey {
                case length
                case timeStep = "time_step"
            }
        }

        var name: String
        var totp: TOTP
        var disableSignup: Bool
        var bruteForceProtection = true

        enum CodingKeys: String, CodingKey {
            case name, totp
            case disableSignup = "disable_signup", bruteForceProtection = "brute_force_protection"
        }
    }

    var id: String
    var name: String
    var strategy: String
    var displayName: String
    var enabled: Bool
    var realms: [String]
    var isDomainConnection = false
    var options: Options

    enum CodingKeys: String, CodingKey {
        case id, name, strategy, enabled, realms, options
        case displayName = "display_name", isDomainConnection = "is_domain_connection"
    }

    init(_ connection: Connection) {
        id = connection.id
        name = connection.name
        strategy = connection.strategy.rawValue
        displayName = connection.name
        enabled = connection.enabled
        realms = [connection.name]
        options = Options(
            name: connection.name, totp: Options.TOTP(timeStep: connection.codeLifetime, length: connection.codeLength),
            disableSignup: connection.disableSignup)
    }
}
