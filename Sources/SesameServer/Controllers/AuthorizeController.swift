import Foundation
import Hummingbird
import SesameCore

/// The hosted login page behind `/authorize` (OpenID Connect Core §3.1.2): a standard
/// authorization-code flow (with PKCE) in which the user proves an email address or phone
/// number with a one-time code, or signs in with a passkey, then returns to the application
/// with a code.
struct AuthorizeController {
    let redirectLogin: RedirectLogin
    let passwordless: PasswordlessLogin
    let passkeys: PasskeyLogin
    let sessions: BrowserSessions
    let signIn: BrowserSignIn
    let proxies: ProxyPolicy

    func register(on router: Router<SesameRequestContext>) {
        router.get("/authorize", use: show)
        router.post("/authorize/start", use: start)
        router.post("/authorize/verify", use: verify)
        router.post("/authorize/passkey", use: passkey)
        router.post("/authorize/passkey/challenge", use: passkeyChallenge)
        router.get("/authorize/passkey.js", use: script)
    }

    /// Answers at once from the browser's session when it can (single sign-on, `prompt=none`),
    /// otherwise shows the address form.
    @Sendable func show(_ request: Request, context: SesameRequestContext) async throws -> Response {
        var values: [String: String] = [:]
        for name in AuthorizeForm.names { values[name] = request.uri.queryParameters.get(name) }
        let form = AuthorizeForm(values)
        do {
            let outcome = try await redirectLogin.authorize(
                clientID: form.clientID, redirectURI: form.redirectURI, parameters: form.parameters,
                session: try await sessions.resume(signIn.cookie.secret(in: request)),
                ip: context.clientIP(request, proxies: proxies))
            switch outcome {
            case .respond(let answer): return AuthorizationResponder.response(answer)
            case .interact(let application): return Self.identifierPage(application, form, error: nil)
            }
        } catch let error as SesameError where error.kind == .badRequest {
            return Responses.html(Pages.error(error.message), status: .badRequest)
        }
    }

    /// The application's answer after a login on this page, with a new browser session.
    private func signedIn(
        _ answer: AuthorizationResponse, method: LoginMethod, _ request: Request, _ context: SesameRequestContext
    )
        async throws -> Response
    {
        try await signIn.respond(answer, method: method, request: request, ip: context.clientIP(request, proxies: proxies))
    }

    /// The address form, offering passkeys when the application allows passkey sign-in.
    static func identifierPage(
        _ application: SesameCore.Application, _ form: AuthorizeForm, error: String?, status: HTTPResponse.Status = .ok
    ) -> Response {
        let passkeys = application.allows(GrantType.webauthn)
        let page = Pages.identifierForm(
            appName: application.name, fields: form.hiddenFields, hint: form.values["username"] ?? form.parameters.loginHint,
            error: error, passkeys: passkeys)
        return Responses.html(page, status: status, scripts: passkeys)
    }

    @Sendable func start(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm(try await Self.formValues(request, context))
        let application = try await form.check(redirectLogin)
        let appName = application.name
        let username = form.values["username"] ?? ""
        let isPhone = username.hasPrefix("+")
        var start = PasswordlessStartRequest(
            clientID: form.clientID, clientSecret: nil, connection: isPhone ? "sms" : "email",
            email: isPhone ? nil : username, phoneNumber: isPhone ? username : nil, send: "code",
            ip: context.clientIP(request, proxies: proxies))
        start.hostedApplication = application
        do {
            _ = try await passwordless.start(start)
        } catch let error as SesameError where error.kind == .badRequest || error.kind == .tooManyRequests {
            return Self.identifierPage(
                application, form, error: error.message, status: error.kind == .tooManyRequests ? .tooManyRequests : .badRequest)
        }
        var fields = form.hiddenFields
        fields += [("username", username), ("realm", isPhone ? "sms" : "email")]
        return Responses.html(Pages.codeForm(appName: appName, recipient: username, fields: fields, error: nil))
    }

    @Sendable func verify(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm(try await Self.formValues(request, context))
        let appName = try await form.check(redirectLogin).name
        let credentials = PasswordlessCredentials(
            connection: form.values["realm"], username: form.values["username"], code: form.values["otp"])
        let confirmation = MagicLinkConfirmation(
            clientID: form.clientID, credentials: credentials, redirectURI: form.redirectURI, parameters: form.parameters,
            ip: context.clientIP(request, proxies: proxies))
        do {
            return try await signedIn(
                try await redirectLogin.complete(confirmation, method: .hostedOTP), method: .hostedOTP, request, context)
        } catch let error as SesameError where [.invalidGrant, .invalidRequest].contains(error.code) {
            var fields = form.hiddenFields
            fields += [("username", form.values["username"] ?? ""), ("realm", form.values["realm"] ?? "")]
            let page = Pages.codeForm(
                appName: appName, recipient: form.values["username"] ?? "", fields: fields,
                error: "That code is wrong or has expired. Check it, or go back and ask for a new one.")
            return Responses.html(page, status: .badRequest)
        }
    }

    /// A passkey answer posted by ``PasskeyScript``: on success the application's callback with
    /// a code; otherwise the address form again, saying why.
    @Sendable func passkey(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm(try await Self.formValues(request, context))
        let application = try await form.check(redirectLogin)
        do {
            let answer = try await redirectLogin.completeWithPasskey(
                clientID: form.clientID, redirectURI: form.redirectURI, parameters: form.parameters,
                authSession: form.values["auth_session"], response: form.values["authn_response"].map { Data($0.utf8) },
                ip: context.clientIP(request, proxies: proxies))
            return try await signedIn(answer, method: .hostedPasskey, request, context)
        } catch let error as SesameError where [.badRequest, .forbidden, .unauthorized].contains(error.kind) {
            return Self.identifierPage(application, form, error: "Passkey sign-in failed: \(error.message)", status: .badRequest)
        }
    }

    /// The page's passkey challenge: the application is identified by its registered callback,
    /// as for codes, so a confidential application's page needs no client secret.
    @Sendable func passkeyChallenge(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm(try await Self.formValues(request, context))
        let application = try await form.check(redirectLogin)
        guard application.allows(GrantType.webauthn) else { throw SesameError.grantNotAllowed(GrantType.webauthn) }
        let challenge = try await passkeys.startAuthentication(
            application: application, realm: nil, ip: context.clientIP(request, proxies: proxies))
        return try Responses.json(challenge, noStore: true)
    }

    @Sendable func script(_ request: Request, context: SesameRequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "public, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(string: PasskeyScript.source)))
    }

    static func formValues(_ request: Request, _ context: SesameRequestContext) async throws -> [String: String] {
        let body = try await RequestParameters.parse(request, context: context, allowForm: true)
        var values: [String: String] = [:]
        for key in body.keys { values[key] = try body.string(key) }
        return values
    }
}

/// The authorize parameters a login page carries from step to step in hidden fields.
struct AuthorizeForm {
    let values: [String: String]

    init(_ values: [String: String]) {
        self.values = values
    }

    var clientID: String? { values["client_id"] }
    var redirectURI: String? { values["redirect_uri"] }

    var parameters: AuthorizeParameters { AuthorizeParameters { values[$0] } }

    /// Every authorize parameter the page reads from the query and carries between steps;
    /// anything else (`auth0Client`, SDK options) is ignored.
    static let names = ["client_id", "redirect_uri"] + AuthorizeParameters.names

    /// The authorize parameters, to carry to the next step.
    var hiddenFields: [(String, String)] {
        Self.names.compactMap { name in values[name].map { (name, $0) } }
    }

    /// The application, after checking that the callback is one it allows.
    func check(_ redirectLogin: RedirectLogin) async throws -> SesameCore.Application {
        try await redirectLogin.target(clientID: clientID, redirectURI: redirectURI).0
    }
}
