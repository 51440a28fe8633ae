import Foundation
import HTTPTypes
import Hummingbird
import SesameCore

/// The steps of the hosted login as pages.
extension BrowserLoginPages {
    /// The step `page` shows, in words, to show now or again after a POST; nil for the pages
    /// that are not a step of this page's login (a link's own page, an error).
    func shown(_ page: BrowserPage, _ view: PageView, _ form: AuthorizeForm) -> ShownStep? {
        switch page {
        case .identifier(let step):
            // A forged post's address is not kept: another site must not fill in this browser's form.
            let typed = step.problem == .forgedForm ? "" : form.values["username"] ?? ""
            var shown = ShownStep(kind: .identifier, channel: step.channel.rawValue, recipient: typed)
            shown.offersOtherChannel = step.offersOtherChannel
            shown.offersPasskeys = step.offersPasskeys
            shown.signsUp = step.signsUp
            return alerted(shown, step.problem, view)
        case .code(let step):
            var shown = ShownStep(kind: .code, channel: step.channel.rawValue, recipient: step.recipient)
            shown.notice = step.resent ? view.text("resend_sent", ["recipient": step.recipient]) : nil
            shown = alerted(shown, step.problem, view)
            // A refused "Send a new code" says when the next one may be asked for.
            if case .startRefused(let refusal) = step.problem, let wait = waitText(refusal, view, key: "resend_wait") {
                shown.error = wait
            }
            return shown
        case .linkSent(let wait):
            let shown = ShownStep(kind: .link, channel: "email", recipient: wait.recipient, match: wait.match)
            return alerted(shown, wait.problem, view)
        case .message(.linkDenied(let recipient)):
            return ShownStep(kind: .linkDenied, channel: "email", recipient: recipient, status: 403)
        case .message(.linkWaitExpired):
            return ShownStep(kind: .linkWaitExpired, channel: "email", status: 400)
        case .linkConfirm, .message: return nil
        }
    }

    private func alerted(_ step: ShownStep, _ problem: BrowserProblem?, _ view: PageView) -> ShownStep {
        var step = step
        let (error, status) = self.problem(problem, view)
        step.error = error
        step.status = Int(status.code)
        return step
    }

    /// The page of `step`; `form` carries the authorization (hidden fields, links).
    func render(_ step: ShownStep, _ view: PageView, _ form: AuthorizeForm) -> Response {
        let status = HTTPResponse.Status(code: step.status)
        switch step.kind {
        case .identifier: return identifier(step, view, form, status)
        case .code: return code(step, view, form, status)
        case .link: return linkSent(step, view, form, status)
        case .offer:
            return view.render(
                "passkey-offer",
                values: [
                    "continueURL": form.continueURL, "laterURL": form.authorizeURL(path: "/authorize/passkey/later"),
                ],
                fields: form.hiddenFields, scripts: true)
        case .linkDenied: return linkEnded(step, view, form, text: "link_denied", status)
        case .linkWaitExpired: return linkEnded(step, view, form, text: "link_expired", status)
        case .linkPage:
            let message = Self.linkMessages.first { $0.name == step.notice }?.message ?? .linkExpired
            return self.message(message, view, form)
        }
    }

    /// The end of a wait for a link (refused on another device, expired, replaced): what
    /// happened, and the next step at once: a new link, or a code instead.
    private func linkEnded(
        _ step: ShownStep, _ view: PageView, _ form: AuthorizeForm, text key: String, _ status: HTTPResponse.Status
    ) -> Response {
        let values: [String: Any] = [
            "recipient": step.recipient, "backURL": form.authorizeURL(["connection": "email"]),
        ]
        return view.render(
            "link-ended", values: values, fields: form.hiddenFields, error: view.text(key), status: status)
    }

    /// The address form for the step's channel, offering links for email, the other channel
    /// when both are on, and passkeys when the application allows passkey sign-in.
    private func identifier(
        _ step: ShownStep, _ view: PageView, _ form: AuthorizeForm, _ status: HTTPResponse.Status
    ) -> Response {
        let sms = step.channel == BrowserChannel.sms.rawValue
        var values: [String: Any] = [
            "sms": sms, "links": !sms, "passkeys": step.offersPasskeys, "national": pages.defaultCountry != nil,
            "passkeyFirst": step.offersPasskeys && form.parameters.connection == "passkey", "signup": step.signsUp,
        ]
        if step.signsUp { values["title"] = view.text("signup_heading") }
        values["username"] = step.recipient.isEmpty ? form.values["username"] ?? form.parameters.loginHint : step.recipient
        if step.offersOtherChannel { values["switchURL"] = form.authorizeURL(["connection": sms ? "email" : "sms"]) }
        return view.render(
            "login", values: values, fields: form.hiddenFields, error: step.error, status: status,
            scripts: step.offersPasskeys)
    }

    /// The code step: the code field, "Send a new code" and "Use a different address" (number).
    private func code(_ step: ShownStep, _ view: PageView, _ form: AuthorizeForm, _ status: HTTPResponse.Status) -> Response {
        let channel = step.channel
        let fields = form.hiddenFields + [("username", step.recipient), ("realm", channel), ("channel", channel)]
        var values: [String: Any] = [
            "sms": channel == BrowserChannel.sms.rawValue, "recipient": step.recipient,
            "backURL": form.authorizeURL(["connection": channel]),
        ]
        values["notice"] = step.notice
        return view.render("code", values: values, fields: fields, error: step.error, status: status)
    }

    /// The wait for a magic link.
    private func linkSent(
        _ step: ShownStep, _ view: PageView, _ form: AuthorizeForm, _ status: HTTPResponse.Status
    ) -> Response {
        let match = step.match ?? ""
        let fields = form.hiddenFields + [("recipient", step.recipient), ("match", match)]
        let values: [String: Any] = [
            "recipient": step.recipient, "match": match, "backURL": form.authorizeURL(["connection": "email"]),
        ]
        return view.render(
            "link-sent", values: values, fields: fields, error: step.error, status: status, scripts: true)
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
