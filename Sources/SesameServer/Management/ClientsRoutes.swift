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
        router.post("/api/v2/clients/:id/rotate-secret", use: rotateSecret)
    }

    /// The fields a body may carry; `app_type` only on create.
    static let fields: Set<String> = [
        "name", "callbacks", "allowed_logout_urls", "allowed_origins", "web_origins", "logo_uri", "grant_types",
        "token_endpoint_auth_method", "backchannel_logout_uri", "frontchannel_logout_uri", "oidc_logout",
    ]

    /// Every application; with `include_totals=true` a page in Auth0's shape
    /// (`{start, limit, length, total, clients}`), `page` and `per_page` applying to both.
    /// Secrets only for a token with `read:client_keys`, as Auth0 answers.
    @Sendable func list(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let admin = try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readClients)
        let secrets = admin.allows(.readClientKeys)
        return try ManagementPage(request).response(
            try await applications.list().map { ClientBody($0, withSecret: secrets) }, key: "clients")
    }

    /// `POST /api/v2/clients/{id}/rotate-secret`: a new secret, shown in the answer; the old
    /// one stops working at once.
    @Sendable func rotateSecret(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .updateClientKeys)
        let rotated = try await applications.rotateSecret(Self.clientID(context))
        return try Responses.json(ClientBody(rotated, withSecret: true), noStore: true)
    }

    /// One application; its secret only for a token with `read:client_keys`.
    @Sendable func get(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let admin = try await adminTokens.authorize(bearerToken: request.bearerToken, for: .readClients)
        let application = try await applications.application(Self.clientID(context))
        return try Responses.json(ClientBody(application, withSecret: admin.allows(.readClientKeys)), noStore: true)
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
        let admin = try await adminTokens.authorize(bearerToken: request.bearerToken, for: .updateClients)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        try body.refuseUnknown(Self.fields)
        let changes = try ClientChanges(body)
        let before = try await applications.application(Self.clientID(context))
        let updated = try await applications.update(Self.clientID(context)) { try changes.apply(to: &$0) }
        // An application that now authenticates with a secret got its first one: shown here
        // whatever the token; otherwise only to a token that may read secrets.
        let secret = before.clientSecret == nil || admin.allows(.readClientKeys)
        return try Responses.json(ClientBody(updated, withSecret: secret), noStore: true)
    }

    @Sendable func delete(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .deleteClients)
        try await applications.delete(Self.clientID(context))
        return Response(status: .noContent)
    }

    static func clientID(_ context: SesameRequestContext) -> String {
        context.parameters.get("id") ?? ""
    }

    /// Auth0's `app_type`.
    static func type(_ appType: String) throws -> ApplicationType {
        switch appType {
        case "native": return .native
        case "spa": return .spa
        case "regular_web": return .regular
        case "non_interactive": return .nonInteractive
        default: throw SesameError.invalidRequest("app_type must be native, spa, regular_web or non_interactive.")
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
    var grantTypes: [String]?
    var authMethod: TokenEndpointAuthMethod?
    /// A new back-channel logout URI: `.some(nil)` clears it.
    var backchannelLogoutURI: String??
    var frontchannelLogoutURI: String??

    init(_ body: RequestParameters) throws {
        name = try body.string("name")
        callbacks = try body.strings("callbacks")
        logoutURLs = try body.strings("allowed_logout_urls")
        // Sesame keeps one list of web origins for CORS and passkeys: either field sets it.
        let allowed = try body.strings("allowed_origins")
        let web = try body.strings("web_origins")
        origins = allowed.map { $0 + (web ?? []).filter { !allowed!.contains($0) } } ?? web
        logoURI = try body.string("logo_uri")
        grantTypes = try body.strings("grant_types")
        if let method = try body.string("token_endpoint_auth_method") {
            guard let known = TokenEndpointAuthMethod(rawValue: method) else {
                throw SesameError.invalidRequest(
                    "token_endpoint_auth_method must be none, client_secret_post or client_secret_basic.")
            }
            authMethod = known
        }
        try readLogoutURIs(body)
    }

    /// `backchannel_logout_uri` (OIDC's name) or Auth0's `oidc_logout.backchannel_logout_urls`
    /// (one URL; an empty list clears it), and `frontchannel_logout_uri`; `""` clears either.
    private mutating func readLogoutURIs(_ body: RequestParameters) throws {
        if body.contains("backchannel_logout_uri") { backchannelLogoutURI = .some(try body.string("backchannel_logout_uri")) }
        if body.contains("frontchannel_logout_uri") {
            frontchannelLogoutURI = .some(try body.string("frontchannel_logout_uri"))
        }
        guard let oidcLogout = try body.object("oidc_logout") else { return }
        let logout = RequestParameters(oidcLogout)
        try logout.refuseUnknown(["backchannel_logout_urls", "backchannel_logout_initiators"])
        guard let urls = try logout.strings("backchannel_logout_urls") else { return }
        guard urls.count <= 1 else {
            throw SesameError.invalidRequest("oidc_logout.backchannel_logout_urls: Sesame keeps one URL per application.")
        }
        backchannelLogoutURI = .some(urls.first)
    }

    func apply(to application: inout SesameCore.Application) throws {
        application.name = name ?? application.name
        application.callbacks = callbacks ?? application.callbacks
        application.logoutURLs = logoutURLs ?? application.logoutURLs
        application.allowedOrigins = origins ?? application.allowedOrigins
        application.logoURL = logoURI ?? application.logoURL
        application.grantTypes = grantTypes ?? application.grantTypes
        application.authMethod = authMethod ?? application.authMethod
        if let backchannelLogoutURI { application.backchannelLogoutURI = backchannelLogoutURI }
        if let frontchannelLogoutURI { application.frontchannelLogoutURI = frontchannelLogoutURI }
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
            case .nonInteractive: "non_interactive"
            }
        self.init(
            clientID: application.clientID, name: application.name, appType: appType, callbacks: application.callbacks,
            allowedLogoutURLs: application.logoutURLs, allowedOrigins: application.allowedOrigins,
            logoURI: application.logoURL, grantTypes: application.grantTypes,
            tokenEndpointAuthMethod: application.effectiveAuthMethod.rawValue,
            clientSecret: withSecret ? application.clientSecret : nil)
        backchannelLogoutURI = application.backchannelLogoutURI
        frontchannelLogoutURI = application.frontchannelLogoutURI
        oidcLogout = application.backchannelLogoutURI.map { OIDCLogoutBody(backchannelLogoutURLs: [$0]) }
    }
}
