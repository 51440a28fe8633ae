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

    /// The response to `outcome`; `form` is what the page carried (its hidden fields and URLs).
    func response(_ outcome: BrowserLoginOutcome, _ request: Request, form: AuthorizeForm) -> Response {
        switch outcome {
        case .show(let page, let application):
            let view = pages.view(request, application: application, uiLocales: form.parameters.uiLocales)
            return self.page(page, view, form)
        case .answer(let answer, let session, let endsLinkWait):
            var response = AuthorizationResponder.response(answer)
            if let session { response.setCookie(sessionCookie.setting(session.secret)) }
            if endsLinkWait { response.setCookie(linkCookie.clearing) }
            return response
        case .offerPasskey(let application, let session):
            let view = pages.view(request, application: application, uiLocales: form.parameters.uiLocales)
            var response = view.render(
                "passkey-offer", values: ["continueURL": form.continueURL], fields: form.hiddenFields, scripts: true)
            response.setCookie(sessionCookie.setting(session.secret))
            return response
        case .continueAuthorization(let session):
            var response = Responses.redirect(form.continueURL)
            response.setCookie(sessionCookie.setting(session.secret))
            return response
        }
    }

    private func page(_ page: BrowserPage, _ view: PageView, _ form: AuthorizeForm) -> Response {
        switch page {
        case .identifier(let step): identifier(step, view, form)
        case .code(let step): code(step, view, form)
        case .linkSent(let wait): linkSent(wait, view, form)
        case .linkConfirm(let confirmation): linkConfirm(confirmation, view, form)
        case .message(let message): self.message(message, view, form)
        }
    }
}
