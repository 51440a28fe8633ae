import Foundation
import Hummingbird
import SesameCore

/// The hosted page's passkeys: sign-in (autofill or the button, by `passkey.js`) and, after a
/// code or link login, the offer to create one (by `enroll.js`).
extension AuthorizeController {
    func registerPasskeys(on router: Router<SesameRequestContext>) {
        router.post("/authorize/passkey", use: passkey)
        router.post("/authorize/passkey/challenge", use: passkeyChallenge)
        router.post("/authorize/passkey/enroll/options", use: enrollmentOptions)
        router.post("/authorize/passkey/enroll", use: enroll)
    }

    /// A passkey answer posted by `passkey.js`: on success the application's callback with a
    /// code; otherwise the address form again, saying why.
    @Sendable func passkey(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let (form, application, genuine) = try await posted(request, context)
        let view = pages.view(request, application: application, uiLocales: form.parameters.uiLocales)
        guard genuine else {
            return try await identifierPage(view, form, error: view.text("error_csrf"), status: .forbidden)
        }
        do {
            let answer = try await redirectLogin.completeWithPasskey(
                clientID: form.clientID, redirectURI: form.redirectURI, parameters: form.parameters,
                authSession: form.values["auth_session"], response: form.values["authn_response"].map { Data($0.utf8) },
                ip: context.clientIP(request, proxies: proxies))
            return try await signIn.respond(
                answer, method: .hostedPasskey, request: request, ip: context.clientIP(request, proxies: proxies))
        } catch let error as SesameError where [.badRequest, .forbidden, .unauthorized].contains(error.kind) {
            return try await identifierPage(view, form, error: view.text("passkey_failed"), status: .badRequest)
        }
    }

    /// The page's passkey challenge: the application is identified by its registered callback,
    /// as for codes, so a confidential application's page needs no client secret.
    @Sendable func passkeyChallenge(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let (_, application) = try await genuinePost(request, context)
        let challenge = try await passkeys.startAuthentication(
            application: application, realm: nil, ip: context.clientIP(request, proxies: proxies))
        return try Responses.json(challenge, noStore: true)
    }

    /// After a code or link login, offers a passkey when the application allows passkey
    /// sign-in and the person has none yet; the browser session is begun either way, so
    /// "Not now" (and the end of the ceremony) continue through `/authorize` without asking.
    /// - Returns: nil when there is nothing to offer (the caller answers the application).
    func passkeyOffer(
        _ confirmation: MagicLinkConfirmation, _ application: SesameCore.Application, _ form: AuthorizeForm,
        _ view: PageView, _ request: Request, _ context: SesameRequestContext
    ) async throws -> Response? {
        guard application.allows(GrantType.webauthn),
            let email = try await connections.connection(name: confirmation.credentials.connection ?? ""),
            email.passkeyPolicy.enabled, form.parameters.responseMode != ResponseMode.webMessage.rawValue
        else { return nil }
        let user = try await redirectLogin.signIn(confirmation, method: .hostedOTP)
        if try await !passkeys.hasPasskeys(user) {
            let session = try await signIn.begin(user, method: .hostedOTP, request: request, ip: confirmation.ip)
            var response = view.render(
                "passkey-offer", values: ["continueURL": form.continueURL], fields: form.hiddenFields, scripts: true)
            response.setCookie(session)
            return response
        }
        // Already has one: continue to the application from a new session, as a code login would.
        var response = Responses.redirect(form.continueURL)
        response.setCookie(try await signIn.begin(user, method: .hostedOTP, request: request, ip: confirmation.ip))
        return response
    }

    /// `enroll.js` asks for creation options: only for the person this browser signed in just now.
    @Sendable func enrollmentOptions(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let (_, application) = try await genuinePost(request, context)
        let (user, authTime) = try await sessionUser(request)
        let challenge = try await passkeys.startEnrollment(
            user: user, authTime: authTime, application: application, ip: context.clientIP(request, proxies: proxies))
        return try Responses.json(challenge, noStore: true)
    }

    /// `enroll.js` posts the new passkey.
    @Sendable func enroll(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let (form, application) = try await genuinePost(request, context)
        let (user, authTime) = try await sessionUser(request)
        let passkey = try await passkeys.finishEnrollment(
            authSession: form.values["auth_session"], response: form.values["authn_response"].map { Data($0.utf8) },
            user: user, authTime: authTime, clientID: application.clientID, ip: context.clientIP(request, proxies: proxies))
        return try Responses.json(["id": passkey.id, "name": passkey.name], noStore: true)
    }

    /// The user of this browser's session and when they signed in: Core's enrollment refuses
    /// a login older than its recent-login window.
    private func sessionUser(_ request: Request) async throws -> (user: User, authTime: Date) {
        guard let (session, user) = try await sessions.resume(signIn.cookie.secret(in: request)) else {
            throw PasskeyLogin.staleLogin
        }
        return (user, session.authTime)
    }
}
