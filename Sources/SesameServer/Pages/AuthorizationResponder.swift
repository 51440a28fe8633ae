import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SesameAPI
import SesameCore

/// Renders an ``AuthorizationResponse`` in its response mode: a redirect (`query`,
/// `fragment`), an auto-submitting form (`form_post`), or a page that posts the answer to
/// the window that opened or framed it (`web_message`, Auth0's SPA SDK).
///
/// The two pages carry one inline script each, allowed by its SHA-256 hash in the CSP, so no
/// other script can run on them. Only the `web_message` page may be framed, and only by the
/// callback's origin, which ``RedirectLogin`` has checked is an allowed web origin.
enum AuthorizationResponder {
    static func response(_ answer: AuthorizationResponse) -> Response {
        switch answer.mode {
        case .query, .fragment: Responses.redirect(answer.location)
        case .formPost: formPost(answer)
        case .webMessage: webMessage(answer)
        }
    }

    private static func formPost(_ answer: AuthorizationResponse) -> Response {
        let inputs = answer.parameters.map {
            "<input type=\"hidden\" name=\"\(HTMLText.escaped($0.0))\" value=\"\(HTMLText.escaped($0.1))\">"
        }.joined()
        let script = "document.forms[0].submit();"
        let body = """
            <form method="post" action="\(HTMLText.escaped(answer.redirectURI))">\(inputs)
            <noscript><p>Scripts are off: continue by hand.</p><button type="submit">Continue</button></noscript></form>
            <script>\(script)</script>
            """
        return page(layout(title: "Signing in", body: body), script: script, frameAncestors: "'none'")
    }

    private static func webMessage(_ answer: AuthorizationResponse) -> Response {
        var response: [String: String] = [:]
        for (name, value) in answer.parameters { response[name] = value }
        let message = scriptJSON(["type": "authorization_response", "response": response])
        let origin = scriptJSON(answer.origin)
        let script = "(function(){var t=window.opener||window.parent;t.postMessage(\(message),\(origin));})();"
        let body = "<p>Signing in…</p>\n<script>\(script)</script>"
        return page(layout(title: "Signing in", body: body), script: script, frameAncestors: answer.origin)
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

    /// A bare page: these two exist for a moment, before their script runs.
    private static func layout(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTMLText.escaped(title))</title></head><body>
        \(body)
        </body></html>
        """
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
