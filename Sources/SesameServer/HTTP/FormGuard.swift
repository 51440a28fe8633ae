import Hummingbird
import SesameCore

/// The hosted pages' forgery protection (``FormTokens``): a cookie with the browser's random
/// binding and, in every form, the token derived from it. The cookie is `__Host-` prefixed on
/// https, so a sibling subdomain cannot plant one, and lives for the browser session.
struct FormGuard: Sendable {
    let tokens: FormTokens
    let cookie: BrowserCookie

    /// The form field that carries the token.
    static let field = "csrf_token"

    init(tokens: FormTokens, settings: LoginSettings) {
        self.tokens = tokens
        cookie = BrowserCookie("sesame_csrf", settings: settings)
    }

    /// The token for the forms of a page shown to `request`'s browser, and the cookie to set
    /// when the browser has no binding yet.
    func prepare(_ request: Request) -> (token: String, cookie: Cookie?) {
        if let binding = cookie.secret(in: request), !binding.isEmpty {
            return (tokens.token(for: binding), nil)
        }
        let binding = tokens.newBinding()
        return (tokens.token(for: binding), cookie.setting(binding))
    }

    /// Whether a posted form carries the token of the posting browser's binding.
    func accepts(_ request: Request, token: String?) -> Bool {
        tokens.verify(token, binding: cookie.secret(in: request))
    }
}
