import Foundation
import Hummingbird
import SesameAPI
import SesameCore
import SesameParsers

/// The hosted login page behind `/authorize` (OpenID Connect Core §3.1.2): a standard
/// authorization-code flow (with PKCE) in which the person proves an email address or phone
/// number with a one-time code or a magic link, or signs in with a passkey, then returns to
/// the application with a code. Each step is one ``BrowserLogin`` call, rendered by
/// ``BrowserLoginPages``.
struct AuthorizeController {
    let browserLogin: BrowserLogin
    /// Polled by the waiting page (`/authorize/link/status`).
    let linkRequests: LinkRequests
    let pages: BrowserLoginPages

    func register(on router: Router<SesameRequestContext>) {
        router.get("/authorize", use: show)
        router.post("/authorize/start", use: start)
        router.post("/authorize/verify", use: verify)
        router.get("/authorize/step", use: step)
        registerPasskeys(on: router)
        registerLinks(on: router)
    }

    /// Answers at once from the browser's session when it can (single sign-on, `prompt=none`),
    /// otherwise shows the address form.
    @Sendable func show(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm.query(of: request)
        let outcome = try await browserLogin.run(.authorize(form.authorization), from: pages.browser(request, context))
        return pages.response(outcome, request, form: form)
    }

    /// Sends a code (or, for email, a link) and shows the next step; "Send a new code" posts here too.
    @Sendable func start(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm(try await Self.formValues(request, context))
        let typed = form.values["username"] ?? ""
        let national = form.channel == .sms ? PhoneNumberInput.e164(typed, defaultCountry: pages.pages.defaultCountry) : nil
        let start = BrowserStart(
            recipient: national ?? typed, sendsLink: form.values["send"] == SendMode.link.rawValue,
            isResend: form.values["resend"] != nil, language: pages.language(request, uiLocales: form.parameters.uiLocales),
            authParams: Dictionary(form.hiddenFields, uniquingKeysWith: { first, _ in first }))
        return try await run(.start(form.authorization, start), request, context, form)
    }

    /// The code step's answer. The code is read as people copy it from a message (`792 936`,
    /// `792-936`); the Authentication API keeps Auth0's exact comparison.
    @Sendable func verify(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm(try await Self.formValues(request, context))
        let credentials = PasswordlessCredentials(
            connection: form.values["realm"], username: form.values["username"], code: form.values["otp"].map(Self.typedCode))
        return try await run(.verifyCode(form.authorization, credentials), request, context, form)
    }

    /// Runs a posted step; the page it leads to is a GET (``step(_:context:)``).
    func run(
        _ command: BrowserLogin.Command, _ request: Request, _ context: SesameRequestContext, _ form: AuthorizeForm
    ) async throws -> Response {
        let outcome = try await browserLogin.run(command, from: pages.browser(request, context, values: form.values))
        return pages.redirected(outcome, request, form: form)
    }

    /// The page a posted step led to, shown again as often as the browser asks (Reload, Back)
    /// without sending anything. With no step kept for this request, a browser signed in
    /// meanwhile is offered to continue; any other starts from the address form.
    @Sendable func step(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm.query(of: request)
        let uiLocales = form.parameters.uiLocales
        if let step = pages.stepCookie.step(in: request, for: form) {
            let application = await browserLogin.reshownApplication(form.authorization)
            return pages.render(step, pages.pages.view(request, application: application, uiLocales: uiLocales), form)
        }
        guard try await browserLogin.signedInUser(pages.browser(request, context)) != nil else {
            return Responses.redirect(form.authorizeURL())
        }
        let application = await browserLogin.reshownApplication(form.authorization)
        let view = pages.pages.view(request, application: application, uiLocales: uiLocales)
        return view.message(
            view.text("signed_in_heading"), view.text("signed_in_intro"), action: (view.text("continue"), form.continueURL))
    }

    /// A code as typed on the page, without the spaces and dashes people group its digits with.
    static func typedCode(_ typed: String) -> String {
        typed.filter { !$0.isWhitespace && !"-\u{2010}\u{2011}\u{2012}\u{2013}\u{2212}".contains($0) }
    }

    static func formValues(_ request: Request, _ context: SesameRequestContext) async throws -> [String: String] {
        let body = try await RequestParameters.parse(request, context: context, allowForm: true)
        var values: [String: String] = [:]
        for key in body.keys { values[key] = try body.string(key) }
        return values
    }
}
