import Foundation
import HTTPTypes
import Hummingbird
import SesameCore

/// The steps of the hosted login as pages.
extension BrowserLoginPages {
    /// The address form for the step's channel, offering links for email, the other channel
    /// when both are on, and passkeys when the application allows passkey sign-in.
    func identifier(_ step: IdentifierStep, _ view: PageView, _ form: AuthorizeForm) -> Response {
        let channel = step.channel
        var values: [String: Any] = [
            "sms": channel == .sms, "links": channel == .email, "passkeys": step.offersPasskeys,
            "national": pages.defaultCountry != nil,
            "passkeyFirst": step.offersPasskeys && form.parameters.connection == "passkey", "signup": step.signsUp,
        ]
        if step.signsUp { values["title"] = view.text("signup_heading") }
        values["username"] = form.values["username"] ?? form.parameters.loginHint
        if step.offersOtherChannel {
            values["switchURL"] = form.authorizeURL(["connection": channel == .sms ? "email" : "sms"])
        }
        let (error, status) = problem(step.problem, view)
        return view.render(
            "login", values: values, fields: form.hiddenFields, error: error, status: status, scripts: step.offersPasskeys)
    }

    /// The code step: the code field, "Send a new code" and "Use a different address".
    func code(_ step: CodeStep, _ view: PageView, _ form: AuthorizeForm) -> Response {
        let channel = step.channel.rawValue
        let fields = form.hiddenFields + [("username", step.recipient), ("realm", channel), ("channel", channel)]
        var values: [String: Any] = [
            "sms": step.channel == .sms, "recipient": step.recipient, "backURL": form.authorizeURL(["connection": channel]),
        ]
        values["notice"] = step.resent ? view.text("resend_sent", ["recipient": step.recipient]) : nil
        var (error, status) = problem(step.problem, view)
        // A refused "Send a new code" says when the next one may be asked for.
        if case .startRefused(let refusal) = step.problem, let wait = waitText(refusal, view, key: "resend_wait") {
            error = wait
        }
        return view.render("code", values: values, fields: fields, error: error, status: status)
    }

    /// The wait for a magic link; a request just begun leaves its poll secret in an HttpOnly cookie.
    func linkSent(_ wait: LinkWait, _ view: PageView, _ form: AuthorizeForm) -> Response {
        let fields = form.hiddenFields + [("recipient", wait.recipient), ("match", wait.match)]
        let values: [String: Any] = [
            "recipient": wait.recipient, "match": wait.match, "backURL": form.authorizeURL(["connection": "email"]),
            "restartURL": form.authorizeURL(["connection": "email", "login_hint": wait.recipient]),
        ]
        let (error, status) = problem(wait.problem, view)
        var response = view.render("link-sent", values: values, fields: fields, error: error, status: status, scripts: true)
        if let started = wait.started {
            response.setCookie(linkCookie.setting(started.pollSecret, maxAge: started.expiresIn))
        }
        return response
    }

    /// The link's own page: the match-code form on another device, else the one-click form.
    func linkConfirm(_ confirmation: LinkConfirmation, _ view: PageView, _ form: AuthorizeForm) -> Response {
        let fields = MagicLinkController.fields.compactMap { name in form.values[name].map { (name, $0) } }
        let recipient = form.values["email"] ?? form.values["phone_number"] ?? ""
        var shown: [String: Any] = ["recipient": recipient, "matching": confirmation.asksForMatch]
        if confirmation.asksForMatch {
            shown["origin"] = confirmation.askedFrom ?? view.text("link_origin_unknown")
            shown["requested_at"] = confirmation.askedAt.map(Self.requestTime)
        }
        let (error, status) = problem(confirmation.problem, view)
        return view.render("link-confirm", values: shown, fields: fields, error: error, status: status)
    }

    /// `2026-11-28 08:47 UTC`: the same for every reader, whatever their time zone.
    static func requestTime(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        let two = { (value: Int?) in (value ?? 0) < 10 ? "0\(value ?? 0)" : "\(value ?? 0)" }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute)) UTC"
    }
}
