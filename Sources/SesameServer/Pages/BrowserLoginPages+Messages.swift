import Foundation
import HTTPTypes
import Hummingbird
import SesameCore

/// What the hosted login says: its message pages, and why a step is shown again.
extension BrowserLoginPages {
    func message(_ message: BrowserMessage, _ view: PageView, _ form: AuthorizeForm) -> Response {
        let heading = view.text("error_heading")
        switch message {
        case .invalidRequest(let text):
            return view.message(heading, text, isError: true, status: .badRequest)
        case .linkExpired:
            return view.message(heading, view.text("link_expired"), isError: true, status: .badRequest)
        case .linkWaitExpired:
            let back = (view.text("different_address"), form.authorizeURL(["connection": "email"]))
            return view.message(heading, view.text("link_expired"), isError: true, action: back, status: .badRequest)
        case .linkDenied(let recipient):
            let again = (view.text("link_restart"), form.authorizeURL(["connection": "email", "login_hint": recipient]))
            return view.message(heading, view.text("link_denied"), isError: true, action: again, status: .forbidden)
        case .matchConfirmed:
            return view.message(view.text("match_done_heading"), view.text("match_done"))
        case .matchWrong:
            return view.message(view.text("match_denied_heading"), view.text("match_wrong"), isError: true, status: .forbidden)
        case .linkRefused:
            return view.message(view.text("match_denied_heading"), view.text("match_denied"))
        }
    }

    /// The sentence and status of a step shown again because of `problem`.
    func problem(_ problem: BrowserProblem?, _ view: PageView) -> (String?, HTTPResponse.Status) {
        switch problem {
        case nil: (nil, .ok)
        case .forgedForm: (view.text("error_csrf"), .forbidden)
        case .startRefused(let error): (startError(error, view), error.kind == .tooManyRequests ? .tooManyRequests : .badRequest)
        case .passkeyFailed: (view.text("passkey_failed"), .badRequest)
        case .wrongCode(.expired): (view.text("code_expired"), .badRequest)
        case .wrongCode(.usedUp): (view.text("code_used_up"), .badRequest)
        case .wrongCode(.wrong): (view.text("code_wrong"), .badRequest)
        case .linkPending: (view.text("link_pending"), .ok)
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
    func waitText(_ error: SesameError, _ view: PageView, key: String) -> String? {
        guard let limit = error.rateLimit else { return nil }
        return view.text(key, ["seconds": max(1, limit.resetEpochSeconds - clock.now().epochSeconds)])
    }
}
