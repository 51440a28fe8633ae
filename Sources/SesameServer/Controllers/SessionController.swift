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
        router.get("/oidc/logout", use: oidcLogout)
        router.post("/oidc/logout", use: oidcLogout)
        router.get("/me/sessions", use: list)
        router.delete("/me/sessions", use: revokeAll)
        router.delete("/me/sessions/:id", use: revoke)
    }

    /// `GET /v2/logout?client_id&returnTo`.
    @Sendable func auth0Logout(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        return try await end(
            Logout.Request(
                sessionSecret: cookie.secret(in: request), clientID: query.get("client_id"), returnTo: query.get("returnTo"),
                idTokenHint: nil, state: nil), request)
    }

    /// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2), by GET or form POST.
    @Sendable func oidcLogout(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let body = try await RequestParameters.parse(request, context: context, allowForm: true)
        let query = request.uri.queryParameters
        func value(_ name: String) throws -> String? { try body.string(name) ?? query.get(name) }
        return try await end(
            Logout.Request(
                sessionSecret: cookie.secret(in: request), clientID: try value("client_id"),
                returnTo: try value("post_logout_redirect_uri"), idTokenHint: try value("id_token_hint"),
                state: try value("state")), request)
    }

    /// Ends the session, clears the cookie and sends the browser on, or says it is signed out.
    private func end(_ logoutRequest: Logout.Request, _ request: Request) async throws -> Response {
        var response: Response
        let view = pages.view(request, application: nil, uiLocales: request.uri.queryParameters.get("ui_locales"))
        do {
            if let location = try await logout.logout(logoutRequest) {
                response = Responses.redirect(location)
            } else {
                response = view.message(view.text("signed_out_heading"), view.text("signed_out"))
            }
        } catch let error as SesameError where error.kind == .badRequest {
            response = view.message(view.text("error_heading"), error.message, isError: true, status: .badRequest)
        }
        response.setCookie(cookie.clearing)
        return response
    }

    @Sendable func list(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await tokens.authenticate(accessToken: request.bearerToken)
        let current = try await sessions.resume(cookie.secret(in: request))?.0.id
        let bodies = try await sessions.list(grant).map { session in
            SessionBody(session, current: current.map { $0 == session.id })
        }
        return try Responses.json(bodies, noStore: true)
    }

    @Sendable func revoke(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await tokens.authenticate(accessToken: request.bearerToken)
        try await sessions.revoke(id: context.parameters.get("id") ?? "", grant)
        return Response(status: .noContent)
    }

    @Sendable func revokeAll(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let grant = try await tokens.authenticate(accessToken: request.bearerToken)
        try await sessions.revoke(id: nil, grant)
        return Response(status: .noContent)
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
