import Foundation
import Hummingbird
import SesameCore

/// Magic links: the confirm page (GET), the consuming POST, and native-app link pages.
///
/// A link the hosted page sent carries its request's id (`request`). Opened in the browser
/// that asked, it signs that browser in like any link. Opened anywhere else, the page asks
/// for the number the asking screen shows, and a right number signs the asking browser in;
/// a stranger's link (someone else asked, with this address) cannot, since the person opening
/// it does not know the number. Each page is one ``BrowserLogin`` call.
struct MagicLinkController {
    let browserLogin: BrowserLogin
    let pages: BrowserLoginPages

    func register(on router: Router<SesameRequestContext>) {
        router.get("/passwordless/verify_redirect", use: confirmPage)
        router.post("/passwordless/verify_redirect", use: confirm)
        router.post("/passwordless/verify_redirect/deny", use: deny)
        router.get("/ios/:app/:connection", use: nativePage)
        router.get("/android/:app/:connection", use: nativePage)
    }

    /// Shows a one-click page, or the match-code page on another device; nothing is consumed
    /// by a GET, so mail scanners that fetch links cannot burn them.
    @Sendable func confirmPage(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        var values: [String: String] = [:]
        for name in Self.fields { values[name] = query.get(name) }
        let form = AuthorizeForm(values)
        if let step = pages.stepCookie.step(in: request, for: form, names: Self.fields), step.kind == .linkPage {
            let application = await browserLogin.reshownApplication(form.authorization)
            return pages.render(step, pages.pages.view(request, application: application), form)
        }
        let outcome = try await browserLogin.run(
            .openLink(form.authorization, requestID: values["request"]), from: pages.browser(request, context))
        return pages.response(outcome, request, form: form)
    }

    /// Consumes the link: with a match code, for the browser that asked; otherwise for this
    /// browser, answering the application's callback. The link cookie stays: the waiting tab
    /// of this browser still polls with it.
    @Sendable func confirm(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm(try await AuthorizeController.formValues(request, context))
        return try await run(.confirmLink(form.authorization, Self.answer(form.values)), request, context, form)
    }

    /// "It wasn't me": the link dies and the asking browser is told.
    @Sendable func deny(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm(try await AuthorizeController.formValues(request, context))
        return try await run(.refuseLink(form.authorization, Self.answer(form.values)), request, context, form)
    }

    @Sendable func nativePage(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let platform = request.uri.path.hasPrefix("/ios/") ? "iOS" : "Android"
        let view = pages.pages.view(request, application: nil)
        return view.message(view.text("open_app_heading"), view.text("open_app", ["platform": platform]))
    }

    private func run(
        _ command: BrowserLogin.Command, _ request: Request, _ context: SesameRequestContext, _ form: AuthorizeForm
    ) async throws -> Response {
        let outcome = try await browserLogin.run(command, from: pages.browser(request, context, values: form.values))
        return pages.redirected(outcome, request, form: form, link: Self.linkURL(form))
    }

    /// The link's own page (`GET`), where its POST's end is shown again.
    static func linkURL(_ form: AuthorizeForm) -> String {
        var components = URLComponents()
        components.path = "/passwordless/verify_redirect"
        components.queryItems = fields.compactMap { name in form.values[name].map { URLQueryItem(name: name, value: $0) } }
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string ?? components.path
    }

    /// What the link's page posted: its secret, its request and the number typed.
    private static func answer(_ values: [String: String]) -> BrowserLinkAnswer {
        let credentials = PasswordlessCredentials(
            connection: values["connection"], username: values["email"] ?? values["phone_number"],
            code: values["verification_code"])
        return BrowserLinkAnswer(credentials: credentials, requestID: values["request"], match: values["match"])
    }

    /// The query parameters the confirm page carries into its POST.
    static let fields =
        ["client_id", "email", "phone_number", "verification_code", "redirect_uri", "request"]
        + AuthorizeParameters.names
}
