import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SesameCore
import SesameParsers

/// The hosted pages of one server: its templates and languages, its forgery protection, and
/// how it reads phone numbers typed without a country code.
struct HostedPages: Sendable {
    let renderer: PageRenderer
    let forms: FormGuard
    /// `connections.sms.default_country`: the country of numbers typed without `+`.
    let defaultCountry: PhoneNumberInput.DefaultCountry?

    /// A page for `request`, in the language the application asked for (`ui_locales`) or the
    /// browser prefers, branded for `application`.
    func view(_ request: Request, application: SesameCore.Application?, uiLocales: String? = nil) -> PageView {
        let language = PageLanguage.choose(
            uiLocales: uiLocales, acceptLanguage: request.headers[.acceptLanguage], available: renderer.languages)
        let (token, cookie) = forms.prepare(request)
        return PageView(renderer: renderer, language: language, application: application, token: token, cookie: cookie)
    }

    /// Whether a posted form carries this browser's forgery token.
    func accepts(_ request: Request, values: [String: String]) -> Bool {
        forms.accepts(request, token: values[FormGuard.field])
    }
}

/// One page being answered: its language, brand and forgery token.
struct PageView {
    let renderer: PageRenderer
    let language: String
    let application: SesameCore.Application?
    let token: String
    let cookie: Cookie?

    /// A string of the page's language.
    func text(_ key: String, _ values: [String: Any] = [:]) -> String {
        var values = values
        values["app"] = values["app"] ?? application?.name
        return renderer.text(key, language: language, values: values)
    }

    /// Renders `template`. `fields` become hidden inputs of its forms (with the forgery
    /// token); `error` is announced and focused; `scripts` allows the page's own scripts.
    func render(
        _ template: String, values: [String: Any] = [:], fields: [(String, String)] = [], error: String? = nil,
        status: HTTPResponse.Status = .ok, scripts: Bool = false, frameSources: [String] = []
    ) -> Response {
        var values = values
        values["app"] = values["app"] ?? application?.name
        values["title"] = values["title"] ?? text("title_sign_in", values)
        values["fields"] = fields.map { ["name": $0.0, "value": $0.1] }
        values["csrf"] = token
        values["error"] = error
        let style = brandStyle
        if let logo = application?.logoURL, logo.hasPrefix("https://") { values["logo"] = logo }
        values["brandStyle"] = style
        let html = renderer.render(template, language: language, values: values)
        var response = Responses.page(
            html, status: status, inlineStyle: style, scripts: scripts, frameSources: frameSources)
        if let cookie { response.setCookie(cookie) }
        return response
    }

    /// A page with a heading and a sentence (errors, "signed out", "open in the app").
    func message(
        _ heading: String, _ text: String?, isError: Bool = false, action: (label: String, url: String)? = nil,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var values: [String: Any] = ["heading": heading, "title": heading, "isError": isError]
        values["text"] = text
        if let action { values["action"] = ["label": action.label, "url": action.url] }
        return render("message", values: values, status: status)
    }

    /// The application's colours as custom properties, in the one inline style the page's
    /// policy allows by its hash. Links and focus rings use the colour only where it has
    /// WCAG AA contrast on the card; the button's text colour is chosen for contrast.
    private var brandStyle: String? {
        guard let color = application?.brandColor else { return nil }
        let light = color.accent(on: .lightSurface, fallback: .defaultLight)
        let dark = color.accent(on: .darkSurface, fallback: .defaultDark)
        return ":root{--brand:\(color);--on-brand:\(color.textColor);--accent-light:\(light);--accent-dark:\(dark)}"
    }
}

extension Responses {
    /// A hosted page: no framing, caching or referrer; scripts and styles only from this
    /// server, plus the page's one inline style by its hash; images over https (logos).
    /// `frameSources`: the origins the page may frame (the front-channel logout pages), none
    /// otherwise.
    static func page(
        _ html: String, status: HTTPResponse.Status, inlineStyle: String?, scripts: Bool, frameSources: [String] = []
    ) -> Response {
        var styles = "'self'"
        if let inlineStyle {
            styles += " 'sha256-\(Data(SHA256.hash(data: Data(inlineStyle.utf8))).base64EncodedString())'"
        }
        let script = scripts ? "script-src 'self'; connect-src 'self'; " : ""
        let frames = frameSources.isEmpty ? "" : "frame-src \(frameSources.joined(separator: " ")); "
        let policy =
            "default-src 'none'; \(script)\(frames)style-src \(styles); img-src 'self' https: data:; base-uri 'none'; "
            + "frame-ancestors 'none'"
        let headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
            HTTPField.Name("Referrer-Policy")!: "no-referrer", HTTPField.Name("X-Frame-Options")!: "DENY",
            .contentSecurityPolicy: policy,
        ]
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}

/// The hosted pages' templates, language files and assets, loaded once at start.
public struct PageTemplates: Sendable {
    let renderer: PageRenderer
    let assets: PageAssets
    let defaultCountry: PhoneNumberInput.DefaultCountry?

    /// The shipped templates, with those in `overrides` on top.
    /// - Parameters:
    ///   - overrides: a directory of `*.mustache` templates and `locales/*.json` language files.
    ///   - defaultCountry: `connections.sms.default_country`.
    /// - Throws: when an override does not parse; `serve` names the file and stops.
    public static func load(overrides: String? = nil, defaultCountry: String? = nil) throws -> PageTemplates {
        PageTemplates(
            renderer: try PageRenderer.load(overrides: overrides), assets: try PageAssets.load(),
            defaultCountry: defaultCountry.flatMap(PhoneNumberInput.DefaultCountry.init))
    }

    /// The shipped templates alone (tests and embedders that give none).
    public static let shipped: PageTemplates = {
        do {
            return try load()
        } catch {
            fatalError("the shipped hosted-page templates do not load: \(error)")
        }
    }()
}
