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

    /// Polled by `link.js`: pending, approved, denied, completed (in another tab) or expired;
    /// an expired request whose link a newer one replaced says `"reason": "superseded"`.
    @Sendable func linkStatus(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let (status, superseded) = try await linkRequests.poll(pollSecret: pages.linkCookie.secret(in: request))
        var answer = ["status": status.rawValue]
        if superseded { answer["reason"] = "superseded" }
        return try Responses.json(answer, noStore: true)
    }

    /// Signs this browser in once the link was confirmed on another device.
    @Sendable func completeLink(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let form = AuthorizeForm(try await Self.formValues(request, context))
        let command = BrowserLogin.Command.completeLink(
            form.authorization, recipient: form.values["recipient"] ?? "", match: form.values["match"] ?? "")
        return try await run(command, request, context, form)
    }
}
