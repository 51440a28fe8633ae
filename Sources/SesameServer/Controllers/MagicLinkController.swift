import Hummingbird
import SesameCore

/// Magic links: the confirm page (GET), the consuming POST, and native-app link pages.
struct MagicLinkController {
    let redirectLogin: RedirectLogin
    let signIn: BrowserSignIn
    let pages: HostedPages
    let proxies: ProxyPolicy

    func register(on router: Router<SesameRequestContext>) {
        router.get("/passwordless/verify_redirect", use: confirmPage)
        router.post("/passwordless/verify_redirect", use: confirm)
        router.get("/ios/:app/:connection", use: nativePage)
        router.get("/android/:app/:connection", use: nativePage)
    }

    /// Shows a one-click page; nothing is consumed by a GET, so mail scanners that fetch
    /// links cannot burn them.
    @Sendable func confirmPage(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let fields = Self.fields.compactMap { name in query.get(name).map { (name, $0) } }
        do {
            let (application, _) = try await redirectLogin.target(
                clientID: query.get("client_id"), redirectURI: query.get("redirect_uri"))
            let view = pages.view(request, application: application, uiLocales: query.get("ui_locales"))
            let recipient = query.get("email") ?? query.get("phone_number") ?? ""
            return view.render("link-confirm", values: ["recipient": recipient], fields: fields)
        } catch let error as SesameError {
            let view = pages.view(request, application: nil, uiLocales: query.get("ui_locales"))
            return view.message(view.text("error_heading"), error.message, isError: true, status: .badRequest)
        }
    }

    /// Consumes the link, signs this browser in and answers the application's callback.
    @Sendable func confirm(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let values = try await AuthorizeController.formValues(request, context)
        let form = AuthorizeForm(values)
        let credentials = PasswordlessCredentials(
            connection: values["connection"], username: values["email"] ?? values["phone_number"],
            code: values["verification_code"])
        let confirmation = MagicLinkConfirmation(
            clientID: form.clientID, credentials: credentials, redirectURI: form.redirectURI, parameters: form.parameters,
            ip: context.clientIP(request, proxies: proxies))
        let application = try? await form.check(redirectLogin)
        let view = pages.view(request, application: application, uiLocales: form.parameters.uiLocales)
        // A link to a callback the application does not allow is refused the same with or without a token.
        guard application == nil || pages.accepts(request, values: values) else {
            let fields = Self.fields.compactMap { name in values[name].map { (name, $0) } }
            let recipient = credentials.username ?? ""
            return view.render(
                "link-confirm", values: ["recipient": recipient], fields: fields, error: view.text("error_csrf"),
                status: .forbidden)
        }
        do {
            let answer = try await redirectLogin.confirm(confirmation)
            return try await signIn.respond(answer, method: .magicLink, request: request, ip: confirmation.ip)
        } catch let error as SesameError where error.kind == .badRequest {
            return view.message(view.text("error_heading"), error.message, isError: true, status: .badRequest)
        }
    }

    @Sendable func nativePage(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let platform = request.uri.path.hasPrefix("/ios/") ? "iOS" : "Android"
        let view = pages.view(request, application: nil)
        return view.message(view.text("open_app_heading"), view.text("open_app", ["platform": platform]))
    }

    /// The query parameters the confirm page carries into its POST.
    static let fields =
        ["client_id", "email", "phone_number", "verification_code", "redirect_uri"]
        + AuthorizeParameters.names
}
