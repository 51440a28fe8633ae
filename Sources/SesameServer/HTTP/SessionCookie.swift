import Foundation
import HTTPTypes
import Hummingbird
import SesameCore

/// The hosted login page's session cookie. On an https issuer it is `__Host-` prefixed
/// (the browser then insists on Secure, Path=/ and no Domain, so no subdomain can plant or
/// read it); HttpOnly keeps it from scripts; SameSite=Lax sends it on top-level navigations
/// from applications (a redirect to `/authorize`) but not on cross-site subrequests.
struct SessionCookie: Sendable {
    let name: String
    let secure: Bool
    let lifetime: Int

    init(settings: LoginSettings) {
        secure = settings.issuer.hasPrefix("https://")
        name = secure ? "__Host-sesame_session" : "sesame_session"
        lifetime = settings.sessionLifetime
    }

    /// The secret the browser sent, if any.
    func secret(in request: Request) -> String? {
        request.cookies[name]?.value
    }

    /// The cookie carrying a new session's secret.
    func setting(_ secret: String) -> Cookie {
        Cookie(name: name, value: secret, maxAge: lifetime, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// The cookie that removes it.
    var clearing: Cookie {
        Cookie(name: name, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }
}

/// The answer to a browser that just signed in: the application's response, and a new
/// browser session in the cookie.
struct BrowserSignIn: Sendable {
    let sessions: BrowserSessions
    let cookie: SessionCookie

    func respond(_ answer: AuthorizationResponse, method: LoginMethod, request: Request, ip: String?) async throws -> Response {
        var response = AuthorizationResponder.response(answer)
        if let user = answer.user {
            response.setCookie(try await begin(user, method: method, request: request, ip: ip))
        }
        return response
    }

    /// Begins a session for `user` in this browser; returns the cookie that carries it.
    func begin(_ user: User, method: LoginMethod, request: Request, ip: String?) async throws -> Cookie {
        let begun = try await sessions.begin(
            user: user, method: method, presented: cookie.secret(in: request), ip: ip, userAgent: request.headers[.userAgent])
        return cookie.setting(begun.secret)
    }
}
