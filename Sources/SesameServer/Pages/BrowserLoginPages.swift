import Foundation
import Hummingbird
import SesameCore
import SesameParsers

/// The hosted login's transport: reads the browser a request comes from, and renders what a
/// ``BrowserLogin`` step ends in (the one place its outcomes become pages, redirects and
/// cookies, and its refusals words).
struct BrowserLoginPages: Sendable {
    let pages: HostedPages
    /// `sesame_session`: the session's secret, for the session's whole lifetime.
    let sessionCookie: BrowserCookie
    /// `sesame_link`: the poll secret of the browser waiting for its magic link. The link's
    /// page reads it too, to tell the asking browser (sign this tab in) from another device.
    let linkCookie: BrowserCookie
    /// `sesame_step`: the step a posted page leads to, shown by `GET /authorize/step`.
    let stepCookie: StepCookie
    /// `sesame_passkey_later`: who said "Not now" to the passkey offer in this browser.
    let declines: PasskeyDeclines
    let clock: any SesameClock
    let proxies: ProxyPolicy

    /// The browser of `request`; `values` is the posted form, whose forgery token is checked.
    func browser(_ request: Request, _ context: SesameRequestContext, values: [String: String] = [:]) -> BrowserContext {
        BrowserContext(
            sessionSecret: sessionCookie.secret(in: request), linkSecret: linkCookie.secret(in: request),
            formIsGenuine: pages.accepts(request, values: values), ip: context.clientIP(request, proxies: proxies),
            userAgent: request.headers[.userAgent])
    }

    /// The language a page for `request` is shown in (and a message sent from it is written in).
    func language(_ request: Request, uiLocales: String?) -> String {
        PageLanguage.choose(
            uiLocales: uiLocales, acceptLanguage: request.headers[.acceptLanguage], available: pages.renderer.languages)
    }

    /// The response to `outcome` of a GET; `form` is what the page carried (its hidden fields and URLs).
    func response(_ outcome: BrowserLoginOutcome, _ request: Request, form: AuthorizeForm) -> Response {
        switch outcome {
        case .show(let page, let application):
            let view = pages.view(request, application: application, uiLocales: form.parameters.uiLocales)
            var response = self.page(page, view, form)
            if let cookie = linkStarted(page) { response.setCookie(cookie) }
            return response
        case .answer(let answer, let session, let endsLinkWait):
            let words = AnswerWords(
                renderer: pages.renderer, language: language(request, uiLocales: form.parameters.uiLocales))
            var response = AuthorizationResponder.response(answer, words: words)
            if let session { response.setCookie(sessionCookie.setting(session.secret)) }
            if endsLinkWait { response.setCookie(linkCookie.clearing) }
            return finished(response, request)
        case .offerPasskey(let application, let session):
            if declines.declined(in: request, userID: session.session.userID) {
                return response(.continueAuthorization(session: session), request, form: form)
            }
            let view = pages.view(request, application: application, uiLocales: form.parameters.uiLocales)
            var response = render(ShownStep(kind: .offer, channel: form.channel.rawValue), view, form)
            response.setCookie(sessionCookie.setting(session.secret))
            return response
        case .continueAuthorization(let session):
            var response = Responses.redirect(form.continueURL)
            response.setCookie(sessionCookie.setting(session.secret))
            return finished(response, request)
        }
    }

    /// The response to `outcome` of a POST: a step to show is kept in `sesame_step` and
    /// shown by a GET (303), so that reloading it sends nothing and Back asks for nothing.
    func redirected(_ outcome: BrowserLoginOutcome, _ request: Request, form: AuthorizeForm) -> Response {
        var cookies: [Cookie] = []
        let step: ShownStep
        switch outcome {
        case .show(let page, let application):
            let view = pages.view(request, application: application, uiLocales: form.parameters.uiLocales)
            guard let shown = shown(page, view, form) else { return response(outcome, request, form: form) }
            step = shown
            cookies += [linkStarted(page), view.cookie].compactMap { $0 }
        case .offerPasskey(_, let session) where !declines.declined(in: request, userID: session.session.userID):
            step = ShownStep(kind: .offer, channel: form.channel.rawValue)
            cookies.append(sessionCookie.setting(session.secret))
        case .answer(let answer, let session?, let endsLinkWait) where answer.postsPage && !answer.isError:
            // A page that posts the answer is shown by a GET too: the session just begun
            // answers `/authorize` again, so Back lands there, not on a POST to resubmit.
            var response = self.response(.continueAuthorization(session: session), request, form: form)
            if endsLinkWait { response.setCookie(linkCookie.clearing) }
            return response
        default:
            return response(outcome, request, form: form)
        }
        var kept = step
        kept.request = ShownStep.request(of: form)
        var response = Responses.redirect(form.authorizeURL(path: "/authorize/step"))
        response.setCookie(stepCookie.setting(kept))
        for cookie in cookies { response.setCookie(cookie) }
        return response
    }

    /// The response to a magic link page's POST: what happened to the link is kept in
    /// `sesame_step` and shown by the link's own GET (303 to `link`), so that Reload neither
    /// posts the link again nor says it expired.
    func redirected(_ outcome: BrowserLoginOutcome, _ request: Request, form: AuthorizeForm, link: String) -> Response {
        guard case .show(.message(let message), _) = outcome,
            let name = Self.linkMessages.first(where: { $0.message == message })?.name
        else { return response(outcome, request, form: form) }
        var step = ShownStep(kind: .linkPage, channel: BrowserChannel.email.rawValue)
        step.notice = name
        step.request = ShownStep.request(of: form, names: MagicLinkController.fields)
        var response = Responses.redirect(link)
        response.setCookie(stepCookie.setting(step))
        return response
    }

    /// The ends of a link's own page that its GET shows again, by name.
    static let linkMessages: [(name: String, message: BrowserMessage)] = [
        ("matchConfirmed", .matchConfirmed), ("matchWrong", .matchWrong), ("linkRefused", .linkRefused),
        ("linkExpired", .linkExpired),
    ]

    /// A response that ends the login: the step kept for the page is over.
    private func finished(_ response: Response, _ request: Request) -> Response {
        guard stepCookie.cookie.secret(in: request) != nil else { return response }
        var response = response
        response.setCookie(stepCookie.clearing)
        return response
    }

    /// The cookie a wait for a link just begun leaves its poll secret in (HttpOnly).
    private func linkStarted(_ page: BrowserPage) -> Cookie? {
        guard case .linkSent(let wait) = page, let started = wait.started else { return nil }
        return linkCookie.setting(started.pollSecret, maxAge: started.expiresIn)
    }

    private func page(_ page: BrowserPage, _ view: PageView, _ form: AuthorizeForm) -> Response {
        if let step = shown(page, view, form) { return render(step, view, form) }
        switch page {
        case .linkConfirm(let confirmation): return linkConfirm(confirmation, view, form)
        case .message(let message): return self.message(message, view, form)
        case .identifier, .code, .linkSent: return view.message(view.text("error_heading"), nil, isError: true)
        }
    }
}
