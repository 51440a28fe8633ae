import Hummingbird
import SesameCore

/// Magic links: the confirm page (GET), the consuming POST, and native-app link pages.
struct MagicLinkController {
    let redirectLogin: RedirectLogin
    let signIn: BrowserSignIn
    let proxies: ProxyPolicy

    func register(on router: Router<SesameRequestContext>) {
        router.get("/passwordless/verify_redirect", use: confirmPage)
        router.post("/passwordless/verify_redirect", use: confirm)
        router.get("/ios/:app/:connection", use: nativePage)
        router.get("/android/:app/:connection", use: nativePage)
    }

    /// Shows a one-click page; nothing is consumed by a GET.
    @Sendable func confirmPage(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let fields = Self.fields.compactMap { name in query.get(name).map { (name, $0) } }
        do {
            let (application, _) = try await redirectLogin.target(
                clientID: query.get("client_id"), redirectURI: query.get("redirect_uri"))
            return Responses.html(Pages.confirmMagicLink(appName: application.name, fields: fields))
        } catch let error as SesameError {
            return Responses.html(Pages.error(error.message), status: .badRequest)
        }
    }

    /// Consumes the link, signs this browser in and answers the application's callback.
    @Sendable func confirm(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let body = try await RequestParameters.parse(request, context: context, allowForm: true)
        let credentials = PasswordlessCredentials(
            connection: try body.string("connection"),
            username: try body.string("email") ?? body.string("phone_number"), code: try body.string("verification_code"))
        let parameters = try AuthorizeParameters { try body.string($0) }
        let confirmation = MagicLinkConfirmation(
            clientID: try body.string("client_id"), credentials: credentials, redirectURI: try body.string("redirect_uri"),
            parameters: parameters, ip: context.clientIP(request, proxies: proxies))
        do {
            let answer = try await redirectLogin.confirm(confirmation)
            return try await signIn.respond(answer, method: .magicLink, request: request, ip: confirmation.ip)
        } catch let error as SesameError where error.kind == .badRequest {
            return Responses.html(Pages.error(error.message), status: .badRequest)
        }
    }

    @Sendable func nativePage(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let platform = request.uri.path.hasPrefix("/ios/") ? "iOS" : "Android"
        return Responses.html(Pages.openInApp(platform: platform))
    }

    /// The query parameters the confirm page carries into its POST.
    static let fields =
        ["client_id", "email", "phone_number", "verification_code", "redirect_uri"] + AuthorizeParameters.names
}
