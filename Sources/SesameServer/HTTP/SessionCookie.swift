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
        Self.value(named: name, in: request)
    }

    /// `Set-Cookie` for a new session's secret.
    func setting(_ secret: String) -> String {
        attributes("\(name)=\(secret)", maxAge: lifetime)
    }

    /// `Set-Cookie` that removes the cookie.
    var clearing: String { attributes("\(name)=", maxAge: 0) }

    private func attributes(_ pair: String, maxAge: Int) -> String {
        pair + "; Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    /// The value of cookie `name` in the request's `Cookie` headers.
    static func value(named name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return String(parts[1]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }
}

extension Response {
    /// Adds a `Set-Cookie` header.
    mutating func setCookie(_ value: String) {
        headers.append(HTTPField(name: .setCookie, value: value))
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
            let begun = try await sessions.begin(
                user: user, method: method, presented: cookie.secret(in: request), ip: ip,
                userAgent: request.headers[.userAgent])
            response.setCookie(cookie.setting(begun.secret))
        }
        return response
    }
}
