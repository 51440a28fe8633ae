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
        router.get("/authorize/passkey/later", use: later)
    }

    /// "Not now" on the offer: remembered for this person in this browser for 30 days, then
    /// on to the application from the session the login began.
    @Sendable func later(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm.query(of: request)
        var response = Responses.redirect(form.continueURL)
        if let user = try await browserLogin.signedInUser(pages.browser(request, context)) {
            response.setCookie(pages.declines.declining(user.userID, in: request))
        }
        return response
    }

    /// A passkey answer posted by `passkey.js`: on success the application's callback with a
    /// code; otherwise the address form again, saying why.
    @Sendable func passkey(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm(try await Self.formValues(request, context))
        let command = BrowserLogin.Command.passkey(
            form.authorization, authSession: form.values["auth_session"],
            response: form.values["authn_response"].map { Data($0.utf8) })
        return try await run(command, request, context, form)
    }

    /// The page's passkey challenge (`passkey.js`).
    @Sendable func passkeyChallenge(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm(try await Self.formValues(request, context))
        let challenge = try await browserLogin.passkeyChallenge(
            form.authorization, from: pages.browser(request, context, values: form.values))
        return try Responses.json(challenge, noStore: true)
    }

    /// `enroll.js` asks for creation options: only for the person this browser signed in just now.
    @Sendable func enrollmentOptions(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm(try await Self.formValues(request, context))
        let challenge = try await browserLogin.enrollmentOptions(
            form.authorization, from: pages.browser(request, context, values: form.values))
        return try Responses.json(challenge, noStore: true)
    }

    /// `enroll.js` posts the new passkey.
    @Sendable func enroll(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm(try await Self.formValues(request, context))
        let passkey = try await browserLogin.enroll(
            form.authorization, authSession: form.values["auth_session"],
            response: form.values["authn_response"].map { Data($0.utf8) },
            from: pages.browser(request, context, values: form.values))
        return try Responses.json(["id": passkey.id, "name": passkey.name], noStore: true)
    }
}
