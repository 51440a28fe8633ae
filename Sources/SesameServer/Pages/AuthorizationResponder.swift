import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SesameAPI
import SesameCore
import SesameParsers

/// Renders an ``AuthorizationResponse`` in its response mode: a redirect (`query`,
/// `fragment`), an auto-submitting form (`form_post`), or a page that posts the answer to
/// the window that opened or framed it (`web_message`, Auth0's SPA SDK).
///
/// The two pages carry one inline script each, allowed by its SHA-256 hash in the CSP, so no
/// other script can run on them. Only the `web_message` page may be framed, and only by the
/// callback's origin, which ``RedirectLogin`` has checked is an allowed web origin.
enum AuthorizationResponder {
    /// Renders `answer`; its pages are written in `words`' language.
    static func response(_ answer: AuthorizationResponse, words: AnswerWords) -> Response {
        switch answer.mode {
        case .query, .fragment: Responses.redirect(answer.location)
        case .formPost: formPost(answer, words)
        case .webMessage: webMessage(answer, words)
        }
    }

    /// Submits the form once per `state` in this tab: Back or Reload to the page (which a
    /// session answers again, with a fresh code) shows ``signedIn(_:_:)`` instead of posting
    /// a second time, so the application never sees a spent code or a duplicate login. An
    /// error answer carries no code and is posted as often as it is shown.
    static let formPostOnce =
        "(function(){var f=document.forms[0],s=f.elements.namedItem(\"state\"),d=document.getElementById(\"done\"),"
        + "k=\"sesame_answered \"+f.action+\" \"+(s?s.value:\"\");"
        + "function done(){f.hidden=true;d.hidden=false;}"
        + "addEventListener(\"pageshow\",function(e){if(e.persisted)done();});"
        + "try{if(s&&sessionStorage.getItem(k)){done();return;}if(s)sessionStorage.setItem(k,\"1\");}catch(x){}"
        + "f.submit();})();"

    private static func formPost(_ answer: AuthorizationResponse, _ words: AnswerWords) -> Response {
        let inputs = answer.parameters.map {
            "<input type=\"hidden\" name=\"\(HTMLText.escaped($0.0))\" value=\"\(HTMLText.escaped($0.1))\">"
        }.joined()
        let script = answer.isError ? "document.forms[0].submit();" : formPostOnce
        let body = """
            <form method="post" action="\(HTMLText.escaped(answer.redirectURI))">\(inputs)
            <noscript><p>\(words.text("answer_scripts_off"))</p><button type="submit">\(words.text("continue"))</button></noscript></form>
            \(signedIn(answer, words))
            <script>\(script)</script>
            """
        return page(words.layout(body), script: script, frameAncestors: "'none'")
    }

    private static func webMessage(_ answer: AuthorizationResponse, _ words: AnswerWords) -> Response {
        var response: [String: String] = [:]
        for (name, value) in answer.parameters { response[name] = value }
        let message = scriptJSON(["type": "authorization_response", "response": response])
        let origin = scriptJSON(answer.origin)
        let post = "var t=window.opener||window.parent;t.postMessage(\(message),\(origin));"
        // The same once-per-state rule as the form: a second showing posts no spent code.
        let key = scriptJSON("sesame_answered \(answer.origin) \(response["state"] ?? "")")
        let once =
            "var w=document.getElementById(\"wait\"),d=document.getElementById(\"done\");"
            + "try{if(sessionStorage.getItem(\(key))){w.hidden=true;d.hidden=false;return;}"
            + "sessionStorage.setItem(\(key),\"1\");}catch(x){}"
        let guarded = answer.isError || response["state"] == nil ? "" : once
        let script = "(function(){\(guarded)\(post)})();"
        let body = "<p id=\"wait\">\(words.text("answer_wait"))</p>\n\(signedIn(answer, words))\n<script>\(script)</script>"
        return page(words.layout(body), script: script, frameAncestors: answer.origin)
    }

    /// What a second showing of an answer page says: the login is done, with the way back to
    /// the application's site (hidden until the page's script finds the answer already given).
    private static func signedIn(_ answer: AuthorizationResponse, _ words: AnswerWords) -> String {
        let site = URL(string: answer.origin)?.host ?? answer.origin
        return """
            <div id="done" hidden><h1>\(words.text("signed_in_heading"))</h1>
            <p><a href="\(HTMLText.escaped(answer.origin))/">\(words.text("answer_continue", ["site": site]))</a></p></div>
            """
    }

    private static func page(_ html: String, script: String, frameAncestors: String) -> Response {
        let hash = Data(SHA256.hash(data: Data(script.utf8))).base64EncodedString()
        let policy =
            "default-src 'none'; script-src 'sha256-\(hash)'; style-src 'unsafe-inline'; form-action *; "
            + "frame-ancestors \(frameAncestors)"
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
            HTTPField.Name("Referrer-Policy")!: "no-referrer", .contentSecurityPolicy: policy,
        ]
        if frameAncestors == "'none'" { headers[HTTPField.Name("X-Frame-Options")!] = "DENY" }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// JSON that is safe inside a `<script>` element: no `<`, `>`, `&` or line separators
    /// that could end the element or the string.
    static func scriptJSON(_ value: Any) -> String {
        let data =
            (try? JSONSerialization.data(
                withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
            .replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
            .replacingOccurrences(of: "&", with: "\\u0026").replacingOccurrences(of: "\u{2028}", with: "\\u2028")
            .replacingOccurrences(of: "\u{2029}", with: "\\u2029")
    }
}

/// The strings of the answer pages in the login's language (the hosted page's own choice:
/// `ui_locales`, then `Accept-Language`), with its direction.
struct AnswerWords {
    let renderer: PageRenderer
    let language: String

    /// A finished string of the language (language files hold trusted HTML; values are escaped).
    func text(_ key: String, _ values: [String: Any] = [:]) -> String {
        renderer.text(key, language: language, values: values)
    }

    /// A bare page: these exist for a moment, before their script runs.
    func layout(_ body: String) -> String {
        """
        <!doctype html>
        <html lang="\(HTMLText.escaped(language))" dir="\(PageLanguage.direction(of: language))"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(text("answer_title"))</title></head><body>
        \(body)
        </body></html>
        """
    }
}

extension AuthorizationResponse {
    /// Whether the answer is a page of this server's (`form_post`, `web_message`) rather
    /// than a redirect.
    var postsPage: Bool { mode == .formPost || mode == .webMessage }
}
