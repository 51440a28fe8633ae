import Foundation
import Hummingbird
public import SesameAPI
public import SesameCore
import SesameParsers

/// Browser sessions: logout (Auth0's `/v2/logout` and OpenID Connect's end-session endpoint)
/// and `/me/sessions`, where a signed-in person sees and ends theirs.
struct SessionController {
    let sessions: BrowserSessions
    let logout: Logout
    let tokens: TokenService
    let cookie: BrowserCookie
    let pages: HostedPages
    let proxies: ProxyPolicy

    func register(on router: Router<SesameRequestContext>) {
        router.get("/v2/logout", use: auth0Logout)
        router.post("/v2/logout", use: auth0Logout)
        router.get("/oidc/logout", use: oidcLogout)
        router.post("/oidc/logout", use: oidcLogout)
        router.get("/me/sessions", use: list)
        router.delete("/me/sessions", use: revokeAll)
        router.delete("/me/sessions/:id", use: revoke)
    }

    /// `GET /v2/logout?client_id&returnTo` (and `id_token_hint`); POST is the confirm page's
    /// button.
    @Sendable func auth0Logout(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let parameters = try await LogoutParameters(request, context: context)
        let logoutRequest = Logout.Request(
            sessionSecret: cookie.secret(in: request), clientID: try parameters.value("client_id"),
            returnTo: try parameters.value("returnTo"), idTokenHint: try parameters.value("id_token_hint"), state: nil)
        return try await confirmOrEnd(
            logoutRequest, request, parameters: parameters, action: "/v2/logout", carried: ["client_id", "returnTo"])
    }

    /// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2), by GET or form POST.
    @Sendable func oidcLogout(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let parameters = try await LogoutParameters(request, context: context)
        let logoutRequest = Logout.Request(
            sessionSecret: cookie.secret(in: request), clientID: try parameters.value("client_id"),
            returnTo: try parameters.value("post_logout_redirect_uri"), idTokenHint: try parameters.value("id_token_hint"),
            state: try parameters.value("state"))
        return try await confirmOrEnd(
            logoutRequest, request, parameters: parameters, action: "/oidc/logout",
            carried: ["client_id", "post_logout_redirect_uri", "state", "ui_locales"])
    }

    /// Ends the session when the request proves an application sent it (``Logout/isVouchedFor(_:)``),
    /// when the person confirmed on our page (a form carrying this browser's forgery token), or
    /// when there is no session to end; otherwise asks. A link or image on another site could
    /// otherwise sign anyone out of every application at will.
    private func confirmOrEnd(
        _ logoutRequest: Logout.Request, _ request: Request, parameters: LogoutParameters, action: String,
        carried: [String]
    ) async throws -> Response {
        let hasSession = !(logoutRequest.sessionSecret ?? "").isEmpty
        let token = try parameters.value(FormGuard.field)
        let confirmed = request.method == .post && pages.forms.accepts(request, token: token)
        let mayEnd = !hasSession || confirmed ? true : try await logout.isVouchedFor(logoutRequest)
        if mayEnd {
            return try await end(logoutRequest, request, uiLocales: try parameters.value("ui_locales"))
        }
        let view = pages.view(request, application: nil, uiLocales: try parameters.value("ui_locales"))
        let heading = view.text("logout_confirm_heading")
        let fields = try carried.compactMap { name in try parameters.value(name).map { (name, $0) } }
        return view.render("logout-confirm", values: ["title": heading, "action": action], fields: fields)
    }

    /// Ends the session, clears the cookie and sends the browser on, or says it is signed out.
    private func end(_ logoutRequest: Logout.Request, _ request: Request, uiLocales: String?) async throws -> Response {
        var response: Response
        let view = pages.view(request, application: nil, uiLocales: uiLocales)
        let ended = try await logout.end(logoutRequest)
        if !ended.frontchannelURLs.isEmpty {
            response = view.frontchannelLogout(ended.frontchannelURLs, continueTo: ended.location, refusal: ended.refusal)
        } else if let refusal = ended.refusal {
            response = view.message(view.text("error_heading"), refusal.message, isError: true, status: .badRequest)
        } else if let location = ended.location {
            response = Responses.redirect(location)
        } else {
            response = view.message(view.text("signed_out_heading"), view.text("signed_out"))
        }
        response.setCookie(cookie.clearing)
        return response
    }

    @Sendable func list(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await tokens.authenticate(request.presentedAccessToken)
        let current = try await sessions.resume(cookie.secret(in: request))?.0.id
        let bodies = try await sessions.list(grant).map { session in
            SessionBody(session, current: current.map { $0 == session.id })
        }
        return try Responses.json(bodies, noStore: true)
    }

    @Sendable func revoke(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await tokens.authenticate(request.presentedAccessToken)
        try await sessions.revoke(id: context.parameters.get("id") ?? "", grant)
        return Response(status: .noContent)
    }

    @Sendable func revokeAll(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await tokens.authenticate(request.presentedAccessToken)
        try await sessions.revoke(id: nil, grant)
        return Response(status: .noContent)
    }
}

/// A logout's parameters: the form body of a POST, then the query.
private struct LogoutParameters {
    let body: RequestParameters?
    let request: Request

    init(_ request: Request, context: SesameRequestContext) async throws {
        body = request.method == .post ? try await RequestParameters.parse(request, context: context, allowForm: true) : nil
        self.request = request
    }

    /// - Throws: 400 for a body member that is not a string.
    func value(_ name: String) throws -> String? {
        try body?.string(name) ?? request.uri.queryParameters.get(name)
    }
}

extension SessionBody {
    /// The body of a stored session.
    public init(_ session: BrowserSession, current: Bool? = nil) {
        self.init(
            id: session.id, userID: session.userID, methods: session.methods, createdAt: ISO8601.string(session.createdAt),
            authenticatedAt: ISO8601.string(session.authTime), lastSeenAt: ISO8601.string(session.lastSeenAt),
            expiresAt: ISO8601.string(session.expiresAt), ip: session.ip, userAgent: session.userAgent, current: current)
    }
}
