import Foundation
import Hummingbird
import SesameAPI
import SesameCore
import SesameParsers

/// `/api/v2/clients`: applications in Auth0's shape, through ``ApplicationAdministration``.
struct ClientsRoutes {
    let adminTokens: AdminTokens
    let applications: ApplicationAdministration

    func register(on router: Router<SesameRequestContext>) {
        router.get("/api/v2/clients", use: list)
        router.post("/api/v2/clients", use: create)
        router.get("/api/v2/clients/:id", use: get)
        router.patch("/api/v2/clients/:id", use: update)
        router.delete("/api/v2/clients/:id", use: delete)
    }

    /// The fields a body may carry; `app_type` only on create.
    static let fields: Set<String> = [
        "name", "callbacks", "allowed_logout_urls", "allowed_origins", "web_origins", "logo_uri",
    ]

    @Sendable func list(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readClients)
        return try Responses.json(try await applications.list().map { ClientBody($0) }, noStore: true)
    }

    @Sendable func get(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readClients)
        return try Responses.json(ClientBody(try await applications.application(Self.clientID(context))), noStore: true)
    }

    @Sendable func create(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .createClients)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        try body.refuseUnknown(Self.fields.union(["app_type"]))
        guard let name = try body.string("name") else { throw SesameError.invalidRequest("name is required.") }
        let type = try Self.type(try body.string("app_type") ?? "native")
        let changes = try ClientChanges(body)
        let created = try await applications.create(name: name, type: type) { try changes.apply(to: &$0) }
        return try Responses.json(ClientBody(created, withSecret: true), status: .created, noStore: true)
    }

    @Sendable func update(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .updateClients)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        try body.refuseUnknown(Self.fields)
        let changes = try ClientChanges(body)
        let updated = try await applications.update(Self.clientID(context)) { try changes.apply(to: &$0) }
        return try Responses.json(ClientBody(updated), noStore: true)
    }

    @Sendable func delete(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .deleteClients)
        try await applications.delete(Self.clientID(context))
        return Response(status: .noContent)
    }

    static func clientID(_ context: SesameRequestContext) -> String {
        context.parameters.get("id") ?? ""
    }

    /// Auth0's `app_type`; machine-to-machine (`non_interactive`) has no grant here.
    static func type(_ appType: String) throws -> ApplicationType {
        switch appType {
        case "native": return .native
        case "spa": return .spa
        case "regular_web": return .regular
        case "non_interactive":
            throw SesameError.invalidRequest("app_type non_interactive is not supported: Sesame signs people in, not machines.")
        default: throw SesameError.invalidRequest("app_type must be native, spa or regular_web.")
        }
    }
}

/// The settings a create or update body carries; absent ones stay as they are.
struct ClientChanges: Sendable {
    var name: String?
    var callbacks: [String]?
    var logoutURLs: [String]?
    var origins: [String]?
    var logoURI: String?

    init(_ body: RequestParameters) throws {
        name = try body.string("name")
        callbacks = try body.strings("callbacks")
        logoutURLs = try body.strings("allowed_logout_urls")
        // Sesame keeps one list of web origins for CORS and passkeys: either field sets it.
        let allowed = try body.strings("allowed_origins")
        let web = try body.strings("web_origins")
        origins = allowed.map { $0 + (web ?? []).filter { !allowed!.contains($0) } } ?? web
        logoURI = try body.string("logo_uri")
    }

    func apply(to application: inout SesameCore.Application) throws {
        application.name = name ?? application.name
        application.callbacks = callbacks ?? application.callbacks
        application.logoutURLs = logoutURLs ?? application.logoutURLs
        application.allowedOrigins = origins ?? application.allowedOrigins
        application.logoURL = logoURI ?? application.logoURL
    }
}

extension ClientBody {
    /// An application in Auth0's shape; the secret only when asked (the answer to create).
    init(_ application: SesameCore.Application, withSecret: Bool = false) {
        let appType =
            switch application.type {
            case .native: "native"
            case .spa: "spa"
            case .regular: "regular_web"
            }
        self.init(
            clientID: application.clientID, name: application.name, appType: appType, callbacks: application.callbacks,
            allowedLogoutURLs: application.logoutURLs, allowedOrigins: application.allowedOrigins,
            logoURI: application.logoURL, grantTypes: application.grantTypes,
            tokenEndpointAuthMethod: application.isConfidential ? "client_secret_post" : "none",
            clientSecret: withSecret ? application.clientSecret : nil)
    }
}
