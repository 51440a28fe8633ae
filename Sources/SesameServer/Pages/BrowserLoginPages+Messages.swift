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
            return view.message(heading, view.text(Self.requestErrorKey(text)), isError: true, status: .badRequest)
        case .linkExpired:
            // A link of a login that names its callback can start that login again.
            let email = form.values["email"]
            let again = form.redirectURI.map { _ in
                (view.text("link_send_new"), form.authorizeURL(["connection": "email", "login_hint": email]))
            }
            return view.message(heading, view.text("link_expired"), isError: true, action: again, status: .badRequest)
        case .linkWaitExpired, .linkDenied:
            // The end of this browser's own wait: a step of its login, with the next step.
            guard let step = shown(.message(message), view, form) else { return view.message(heading, nil, isError: true) }
            return render(step, view, form)
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
        case .wrongCode(.superseded): (view.text("code_superseded"), .badRequest)
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
        default:
            error.kind == .tooManyRequests
                ? waitText(error, view, key: "error_rate") ?? view.text("error_start")
                : view.text("error_start")
        }
    }

    /// The string that tells a person, in their language, why Core refused the request a page
    /// carries (Core's sentence is English, for developers): a callback the application does not
    /// allow, an application the server does not know, or anything else about the request.
    static func requestErrorKey(_ message: String) -> String {
        if message.contains("redirect_uri") || message.contains("web_message") { return "error_callback" }
        if message.contains("unknown application") { return "error_unknown_app" }
        return "error_request"
    }

    /// "Try again in N seconds" from a rate-limit refusal.
    func waitText(_ error: SesameError, _ view: PageView, key: String) -> String? {
        guard let limit = error.rateLimit else { return nil }
        return view.text(key, ["seconds": max(1, limit.resetEpochSeconds - clock.now().epochSeconds)])
    }
}
