import Foundation
import HTTPTypes
import Hummingbird
import SesameCore

/// A cookie of the hosted pages: the browser session, the forgery-protection binding and
/// the magic-link poll secret. On an https issuer it is `__Host-` prefixed (the browser then
/// insists on Secure, Path=/ and no Domain, so no subdomain can plant or read it); HttpOnly
/// keeps it from scripts; SameSite=Lax sends it on top-level navigations from applications
/// (a redirect to `/authorize`) but not on cross-site subrequests.
struct BrowserCookie: Sendable {
    let name: String
    let secure: Bool
    /// Seconds a set cookie lives unless told otherwise; nil lasts the browser session.
    let lifetime: Int?

    init(_ name: String, settings: LoginSettings, lifetime: Int? = nil) {
        secure = settings.issuer.hasPrefix("https://")
        self.name = secure ? "__Host-" + name : name
        self.lifetime = lifetime
    }

    /// The value the browser sent, if any.
    func secret(in request: Request) -> String? {
        request.cookies[name]?.value
    }

    /// The cookie carrying `value`.
    func setting(_ value: String, maxAge: Int? = nil) -> Cookie {
        Cookie(
            name: name, value: value, maxAge: maxAge ?? lifetime, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// The cookie that removes it.
    var clearing: Cookie { setting("", maxAge: 0) }
}
