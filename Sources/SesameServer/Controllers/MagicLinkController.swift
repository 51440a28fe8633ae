import Foundation
import Hummingbird
import SesameCore

/// Magic links: the confirm page (GET), the consuming POST, and native-app link pages.
///
/// A link the hosted page sent carries its request's id (`request`). Opened in the browser
/// that asked, it signs that browser in like any link. Opened anywhere else, the page asks
/// for the number the asking screen shows, and a right number signs the asking browser in;
/// a stranger's link (someone else asked, with this address) cannot, since the person opening
/// it does not know the number.
struct MagicLinkController {
    let redirectLogin: RedirectLogin
    let linkRequests: LinkRequests
    /// `sesame_link`: the poll secret of the browser waiting for its magic link. The link's
    /// page reads it too, to tell the asking browser (sign this tab in) from another device.
    let linkCookie: BrowserCookie
    let signIn: BrowserSignIn
    let pages: HostedPages
    let proxies: ProxyPolicy

    func register(on router: Router<SesameRequestContext>) {
        router.get("/passwordless/verify_redirect", use: confirmPage)
        router.post("/passwordless/verify_redirect", use: confirm)
        router.post("/passwordless/verify_redirect/deny", use: deny)
        router.get("/ios/:app/:connection", use: nativePage)
        router.get("/android/:app/:connection", use: nativePage)
    }

    /// Shows a one-click page, or the match-code page on another device; nothing is consumed
    /// by a GET, so mail scanners that fetch links cannot burn them.
    @Sendable func confirmPage(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        var values: [String: String] = [:]
        for name in Self.fields { values[name] = query.get(name) }
        let link = try await linkRequests.request(id: values["request"])
        let application: SesameCore.Application
        do {
            application = try await target(values, link)
        } catch let error as SesameError {
            let view = pages.view(request, application: nil, uiLocales: query.get("ui_locales"))
            return view.message(view.text("error_heading"), error.message, isError: true, status: .badRequest)
        }
        let view = pages.view(request, application: application, uiLocales: query.get("ui_locales"))
        if let link, link.status != .pending {
            return view.message(view.text("error_heading"), view.text("link_expired"), isError: true, status: .badRequest)
        }
        return page(view, values, link: link, request: request)
    }

    /// The link's own page: the match-code form on another device, else the one-click form.
    private func page(
        _ view: PageView, _ values: [String: String], link: LinkRequest?, request: Request, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        let matching = link.map { !linkRequests.isAsker(linkCookie.secret(in: request), of: $0) } ?? false
        let fields = Self.fields.compactMap { name in values[name].map { (name, $0) } }
        let recipient = values["email"] ?? values["phone_number"] ?? ""
        var shown: [String: Any] = ["recipient": recipient, "matching": matching]
        if let link, matching {
            // Who asked, from where and when: a person who sees an application, a place or a
            // time that is not theirs can tell it was not them before typing any number.
            shown["origin"] = link.ip ?? view.text("link_origin_unknown")
            shown["requested_at"] = Self.requestTime(link.createdAt)
        }
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

    /// The application a link is for: its request's, or the one its callback names.
    private func target(_ values: [String: String], _ link: LinkRequest?) async throws -> SesameCore.Application {
        if let link, values["redirect_uri"] == nil {
            return try await redirectLogin.application(clientID: link.clientID)
        }
        return try await redirectLogin.target(clientID: values["client_id"], redirectURI: values["redirect_uri"]).0
    }

    /// Consumes the link: with a match code, for the browser that asked; otherwise for this
    /// browser, answering the application's callback.
    @Sendable func confirm(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let values = try await AuthorizeController.formValues(request, context)
        let link = try await linkRequests.request(id: values["request"])
        let application = try? await target(values, link)
        let view = pages.view(request, application: application, uiLocales: values["ui_locales"])
        // A link to a callback the application does not allow is refused the same with or without a token.
        guard application == nil || pages.accepts(request, values: values) else {
            return page(view, values, link: link, request: request, error: view.text("error_csrf"), status: .forbidden)
        }
        // Another device always goes through the number, even when none was typed.
        if let link, !linkRequests.isAsker(linkCookie.secret(in: request), of: link) {
            return try await approve(values, view, ip: context.clientIP(request, proxies: proxies))
        }
        let form = AuthorizeForm(values)
        let confirmation = MagicLinkConfirmation(
            clientID: form.clientID, credentials: Self.credentials(values), redirectURI: form.redirectURI,
            parameters: form.parameters, ip: context.clientIP(request, proxies: proxies))
        do {
            let answer = try await redirectLogin.confirm(confirmation)
            // The asking tab, still polling, learns the link was used here.
            if answer.user != nil { try await linkRequests.markCompleted(id: values["request"]) }
            // The link cookie stays: the waiting tab of this browser still polls with it.
            return try await signIn.respond(answer, method: .magicLink, request: request, ip: confirmation.ip)
        } catch let error as SesameError where error.kind == .badRequest {
            return view.message(view.text("error_heading"), error.message, isError: true, status: .badRequest)
        }
    }

    /// On another device: the right number signs the asking browser in; a wrong one stops it.
    private func approve(_ values: [String: String], _ view: PageView, ip: String?) async throws -> Response {
        do {
            _ = try await linkRequests.approve(
                id: values["request"], match: values["match"], credentials: Self.credentials(values), ip: ip)
            return view.message(view.text("match_done_heading"), view.text("match_done"))
        } catch let error as SesameError where error.refusal == .link(.wrongMatch) {
            return view.message(view.text("match_denied_heading"), view.text("match_wrong"), isError: true, status: .forbidden)
        } catch let error as SesameError where [.badRequest, .forbidden, .unauthorized].contains(error.kind) {
            return view.message(view.text("error_heading"), view.text("link_expired"), isError: true, status: .badRequest)
        }
    }

    /// "It wasn't me": the link dies and the asking browser is told.
    @Sendable func deny(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let values = try await AuthorizeController.formValues(request, context)
        let link = try await linkRequests.request(id: values["request"])
        let view = pages.view(request, application: try? await target(values, link), uiLocales: values["ui_locales"])
        guard pages.accepts(request, values: values) else {
            return page(view, values, link: link, request: request, error: view.text("error_csrf"), status: .forbidden)
        }
        do {
            try await linkRequests.deny(id: values["request"], credentials: Self.credentials(values))
            return view.message(view.text("match_denied_heading"), view.text("match_denied"))
        } catch let error as SesameError where [.badRequest, .forbidden, .unauthorized].contains(error.kind) {
            return view.message(view.text("error_heading"), view.text("link_expired"), isError: true, status: .badRequest)
        }
    }

    @Sendable func nativePage(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let platform = request.uri.path.hasPrefix("/ios/") ? "iOS" : "Android"
        let view = pages.view(request, application: nil)
        return view.message(view.text("open_app_heading"), view.text("open_app", ["platform": platform]))
    }

    private static func credentials(_ values: [String: String]) -> PasswordlessCredentials {
        PasswordlessCredentials(
            connection: values["connection"], username: values["email"] ?? values["phone_number"],
            code: values["verification_code"])
    }

    /// The query parameters the confirm page carries into its POST.
    static let fields =
        ["client_id", "email", "phone_number", "verification_code", "redirect_uri", "request"]
        + AuthorizeParameters.names
}
