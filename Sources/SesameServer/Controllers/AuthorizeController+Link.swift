import Foundation
import Hummingbird
import SesameCore

/// "Email me a link" on the hosted page: the browser that asked waits with a match code and
/// polls; the link may be opened on any device. On this device it signs the link's tab in;
/// on another, the person types the match code there and this browser is signed in.
extension AuthorizeController {
    func registerLinks(on router: Router<SesameRequestContext>) {
        router.get("/authorize/link/status", use: linkStatus)
        router.post("/authorize/link/complete", use: completeLink)
    }

    /// Mails the link and shows the waiting page; the poll secret stays in an HttpOnly cookie.
    func startLink(
        _ start: PasswordlessStartRequest, _ form: AuthorizeForm, _ view: PageView
    ) async throws -> Response {
        var start = start
        start.send = SendMode.link.rawValue
        start.authParams = Dictionary(form.hiddenFields, uniquingKeysWith: { first, _ in first })
        let started = try await linkRequests.start(start)
        var response = linkPage(view, form, recipient: started.result.recipient, match: started.matchCode)
        response.setCookie(linkCookie.setting(started.pollSecret, maxAge: started.expiresIn))
        return response
    }

    private func linkPage(
        _ view: PageView, _ form: AuthorizeForm, recipient: String, match: String, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        let fields = form.hiddenFields + [("recipient", recipient), ("match", match)]
        let values: [String: Any] = [
            "recipient": recipient, "match": match, "backURL": form.authorizeURL(["connection": "email"]),
            "restartURL": form.authorizeURL(["connection": "email", "login_hint": recipient]),
        ]
        return view.render("link-sent", values: values, fields: fields, error: error, status: status, scripts: true)
    }

    /// Polled by `link.js`: pending, approved, denied, completed (in another tab) or expired;
    /// an expired request whose link a newer one replaced says `"reason": "superseded"`.
    @Sendable func linkStatus(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let (status, superseded) = try await linkRequests.poll(pollSecret: linkCookie.secret(in: request))
        var answer = ["status": status.rawValue]
        if superseded { answer["reason"] = "superseded" }
        return try Responses.json(answer, noStore: true)
    }

    /// Signs this browser in once the link was confirmed on another device.
    @Sendable func completeLink(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let (form, application, genuine) = try await posted(request, context)
        let view = pages.view(request, application: application, uiLocales: form.parameters.uiLocales)
        let recipient = form.values["recipient"] ?? ""
        let match = form.values["match"] ?? ""
        guard genuine else {
            return linkPage(view, form, recipient: recipient, match: match, error: view.text("error_csrf"), status: .forbidden)
        }
        let user: User
        do {
            user = try await linkRequests.complete(
                pollSecret: linkCookie.secret(in: request), clientID: application.clientID)
        } catch let error as SesameError where error.refusal == .link(.pending) {
            return linkPage(view, form, recipient: recipient, match: match, error: view.text("link_pending"))
        } catch let error as SesameError where error.refusal == .link(.denied) {
            let again = (view.text("link_restart"), form.authorizeURL(["connection": "email", "login_hint": recipient]))
            return view.message(
                view.text("error_heading"), view.text("link_denied"), isError: true, action: again, status: .forbidden)
        } catch let error as SesameError where error.refusal == .link(.expired) || error == .userBlocked {
            let back = (view.text("different_address"), form.authorizeURL(["connection": "email"]))
            return view.message(
                view.text("error_heading"), view.text("link_expired"), isError: true, action: back, status: .badRequest)
        }
        let answer = try await redirectLogin.respond(
            for: user, clientID: form.clientID, redirectURI: form.redirectURI, parameters: form.parameters,
            authTime: clock.now())
        var response = try await signIn.respond(
            answer, method: .magicLink, request: request, ip: context.clientIP(request, proxies: proxies))
        response.setCookie(linkCookie.clearing)
        return response
    }
}
