import Foundation
import Hummingbird
import SesameAPI
import SesameCore
import SesameParsers

/// The hosted login page behind `/authorize` (OpenID Connect Core §3.1.2): a standard
/// authorization-code flow (with PKCE) in which the person proves an email address or phone
/// number with a one-time code or a magic link, or signs in with a passkey, then returns to
/// the application with a code.
struct AuthorizeController {
    let redirectLogin: RedirectLogin
    let passwordless: PasswordlessLogin
    let linkRequests: LinkRequests
    /// `sesame_link`: the poll secret of the browser waiting for its magic link. The link's
    /// page reads it too, to tell the asking browser (sign this tab in) from another device.
    let linkCookie: BrowserCookie
    let passkeys: PasskeyLogin
    let sessions: BrowserSessions
    let connections: Registry
    let signIn: BrowserSignIn
    let pages: HostedPages
    let clock: any SesameClock
    let proxies: ProxyPolicy

    func register(on router: Router<SesameRequestContext>) {
        router.get("/authorize", use: show)
        router.post("/authorize/start", use: start)
        router.post("/authorize/verify", use: verify)
        registerPasskeys(on: router)
        registerLinks(on: router)
    }

    /// Answers at once from the browser's session when it can (single sign-on, `prompt=none`),
    /// otherwise shows the address form.
    @Sendable func show(_ request: Request, context: SesameRequestContext) async throws -> Response {
        // Decoded as a form, so "+" is a space (`scope=openid+email`, a state with spaces).
        let query = FormDecoding.decode(request.uri.query ?? "")
        let form = AuthorizeForm(query.filter { AuthorizeForm.names.contains($0.key) && !$0.value.isEmpty })
        do {
            let outcome = try await redirectLogin.authorize(
                clientID: form.clientID, redirectURI: form.redirectURI, parameters: form.parameters,
                session: try await sessions.resume(signIn.cookie.secret(in: request)),
                ip: context.clientIP(request, proxies: proxies))
            switch outcome {
            case .respond(let answer): return AuthorizationResponder.response(answer)
            case .interact(let application):
                let view = pages.view(request, application: application, uiLocales: form.parameters.uiLocales)
                return try await identifierPage(view, form)
            }
        } catch let error as SesameError where error.kind == .badRequest {
            let view = pages.view(request, application: nil, uiLocales: form.parameters.uiLocales)
            return view.message(view.text("error_heading"), error.message, isError: true, status: .badRequest)
        }
    }

    /// The address form for the form's channel, offering links for email, the other channel
    /// when both are on, and passkeys when the application allows passkey sign-in.
    func identifierPage(
        _ view: PageView, _ form: AuthorizeForm, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let email = try await connections.connection(name: "email")?.enabled == true
        let sms = try await connections.connection(name: "sms")?.enabled == true
        let channel: AuthorizeForm.Channel = !sms ? .email : (!email ? .sms : form.channel)
        let passkeys = view.application?.allows(GrantType.webauthn) == true
        var values: [String: Any] = [
            "sms": channel == .sms, "links": channel == .email, "passkeys": passkeys,
            "national": pages.defaultCountry != nil,
            "passkeyFirst": passkeys && form.parameters.connection == "passkey",
        ]
        values["username"] = form.values["username"] ?? form.parameters.loginHint
        if email && sms { values["switchURL"] = form.authorizeURL(["connection": channel == .sms ? "email" : "sms"]) }
        return view.render(
            "login", values: values, fields: form.hiddenFields, error: error, status: status, scripts: passkeys)
    }

    /// Sends a code (or, for email, a link) and shows the next step; "Send a new code" posts here too.
    @Sendable func start(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let (form, application, genuine) = try await posted(request, context)
        let view = pages.view(request, application: application, uiLocales: form.parameters.uiLocales)
        guard genuine else {
            return try await identifierPage(view, form, error: view.text("error_csrf"), status: .forbidden)
        }
        let channel = form.channel
        let typed = form.values["username"] ?? ""
        let recipient = channel == .sms ? PhoneNumberInput.e164(typed, defaultCountry: pages.defaultCountry) ?? typed : typed
        var start = PasswordlessStartRequest(
            clientID: form.clientID, clientSecret: nil, connection: channel.rawValue,
            email: channel == .email ? recipient : nil, phoneNumber: channel == .sms ? recipient : nil, send: "code",
            ip: context.clientIP(request, proxies: proxies))
        start.hostedApplication = application
        // The page's language (ui_locales or the browser's) is the message's too.
        start.requestLanguage = view.language
        let resend = form.values["resend"] != nil
        let started: PasswordlessStartResult
        do {
            if channel == .email, form.values["send"] == SendMode.link.rawValue {
                return try await startLink(start, form, view)
            }
            started = try await passwordless.start(start)
        } catch let error as SesameError where error.kind == .badRequest || error.kind == .tooManyRequests {
            let message = startError(error, view)
            let status: HTTPResponse.Status = error.kind == .tooManyRequests ? .tooManyRequests : .badRequest
            if resend {
                let wait = waitText(error, view, key: "resend_wait") ?? message
                return codePage(view, form, recipient: recipient, channel: channel, error: wait, status: status)
            }
            return try await identifierPage(view, form, error: message, status: status)
        }
        let notice = resend ? view.text("resend_sent", ["recipient": started.recipient]) : nil
        return codePage(view, form, recipient: started.recipient, channel: channel, notice: notice)
    }

    /// The code step: the code field, "Send a new code" and "Use a different address".
    private func codePage(
        _ view: PageView, _ form: AuthorizeForm, recipient: String, channel: AuthorizeForm.Channel,
        notice: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok
    ) -> Response {
        let fields =
            form.hiddenFields + [("username", recipient), ("realm", channel.rawValue), ("channel", channel.rawValue)]
        var values: [String: Any] = [
            "sms": channel == .sms, "recipient": recipient,
            "backURL": form.authorizeURL(["connection": channel.rawValue]),
        ]
        values["notice"] = notice
        return view.render("code", values: values, fields: fields, error: error, status: status)
    }

    @Sendable func verify(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let (form, application, genuine) = try await posted(request, context)
        let view = pages.view(request, application: application, uiLocales: form.parameters.uiLocales)
        let recipient = form.values["username"] ?? ""
        guard genuine else {
            return codePage(
                view, form, recipient: recipient, channel: form.channel, error: view.text("error_csrf"), status: .forbidden)
        }
        let credentials = PasswordlessCredentials(
            connection: form.values["realm"], username: form.values["username"], code: form.values["otp"])
        let confirmation = MagicLinkConfirmation(
            clientID: form.clientID, credentials: credentials, redirectURI: form.redirectURI, parameters: form.parameters,
            ip: context.clientIP(request, proxies: proxies))
        do {
            if let offer = try await passkeyOffer(confirmation, application, form, view, request, context) { return offer }
            let answer = try await redirectLogin.complete(confirmation, method: .hostedOTP)
            return try await signIn.respond(answer, method: .hostedOTP, request: request, ip: confirmation.ip)
        } catch let error as SesameError where [.wrongCredential, .malformedRequest].contains(error.refusal) {
            let key =
                switch error.reason {
                case ErrorReason.codeExpired: "code_expired"
                case ErrorReason.codeAttemptsExhausted: "code_used_up"
                default: "code_wrong"
                }
            return codePage(
                view, form, recipient: recipient, channel: form.channel, error: view.text(key), status: .badRequest)
        }
    }

    /// What a refused start says, in the page's language.
    private func startError(_ error: SesameError, _ view: PageView) -> String {
        switch error.refusal {
        case .passwordlessStart(.email): view.text("error_email")
        case .passwordlessStart(.phoneNumber): view.text("error_phone")
        case .noProvider: view.text("error_delivery")
        case .grantNotAllowed, .passwordlessStart(.connection): view.text("error_unavailable")
        default: error.kind == .tooManyRequests ? waitText(error, view, key: "error_rate") ?? error.message : error.message
        }
    }

    /// "Try again in N seconds" from a rate-limit refusal.
    private func waitText(_ error: SesameError, _ view: PageView, key: String) -> String? {
        guard let limit = error.rateLimit else { return nil }
        return view.text(key, ["seconds": max(1, limit.resetEpochSeconds - clock.now().epochSeconds)])
    }

    /// A form the page posted: its fields, the application its callback names, and whether it
    /// carries this browser's forgery token (the caller answers a page that says so when not).
    func posted(_ request: Request, _ context: SesameRequestContext) async throws -> (
        form: AuthorizeForm, application: SesameCore.Application, genuine: Bool
    ) {
        let form = AuthorizeForm(try await Self.formValues(request, context))
        let application = try await form.check(redirectLogin)
        return (form, application, pages.accepts(request, values: form.values))
    }

    /// A post of the page's scripts, which answer JSON: refused outright without the token.
    func genuinePost(_ request: Request, _ context: SesameRequestContext) async throws -> (
        form: AuthorizeForm, application: SesameCore.Application
    ) {
        let (form, application, genuine) = try await posted(request, context)
        guard genuine else { throw SesameError(.forbidden, .accessDenied, "This page had expired: reload it and try again.") }
        return (form, application)
    }

    static func formValues(_ request: Request, _ context: SesameRequestContext) async throws -> [String: String] {
        let body = try await RequestParameters.parse(request, context: context, allowForm: true)
        var values: [String: String] = [:]
        for key in body.keys { values[key] = try body.string(key) }
        return values
    }
}
