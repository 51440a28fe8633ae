import Foundation

/// The few server-rendered pages: small, self-contained HTML; the only script is the hosted
/// login page's passkey sign-in, served from our own origin (``PasskeyScript``).
enum Pages {
    /// The magic-link landing page. Only its button (a POST) consumes the link, so mail
    /// scanners that fetch links with GET cannot burn it.
    static func confirmMagicLink(appName: String, fields: [(String, String)]) -> String {
        let inputs = fields.map { "<input type=\"hidden\" name=\"\(escape($0.0))\" value=\"\(escape($0.1))\">" }
            .joined(separator: "\n      ")
        return layout(
            title: "Sign in to \(appName)",
            body: """
                <h1>Sign in to \(escape(appName))</h1>
                <p>Continue to finish signing in on this device.</p>
                <form method="post" action="/passwordless/verify_redirect">
                  \(inputs)
                  <button type="submit">Continue signing in</button>
                </form>
                """)
    }

    /// A page for a native-app link opened in a browser instead of the app.
    static func openInApp(platform: String) -> String {
        layout(
            title: "Open in the app",
            body: """
                <h1>Open this link in the app</h1>
                <p>This sign-in link is meant for the \(escape(platform)) app. Open it on the device where the app is
                installed and where you asked to sign in.</p>
                """)
    }

    /// `/welcome`: the start button, who signed in and the id_token's claims, or what went wrong.
    static func welcome(claims: [String: String]? = nil, logoutURL: String? = nil, error: String? = nil) -> String {
        var body = "<h1>Welcome to Sesame</h1>\n"
        if let error { body += "<p role=\"alert\">\(escape(error))</p>\n" }
        if let claims {
            let who = claims["email"] ?? claims["phone_number"] ?? claims["sub"] ?? "someone"
            body += "<p>Signed in as <strong>\(escape(who.trimmingCharacters(in: ["\""])))</strong>.</p>\n"
            body += "<p>The id_token's claims:</p>\n<table>"
            for (name, value) in claims.sorted(by: { $0.key < $1.key }) {
                body += "<tr><th scope=\"row\">\(escape(name))</th><td><code>\(escape(value))</code></td></tr>"
            }
            body += "</table>\n"
            if let logoutURL { body += "<p><a href=\"\(escape(logoutURL))\">Sign out</a></p>\n" }
        } else {
            body += "<p>This page is an application of this server, for trying the hosted login page.</p>\n"
            body += "<p><a href=\"/welcome/start\">Sign in</a></p>\n"
        }
        return layout(title: "Welcome to Sesame", body: body)
    }

    /// After a logout with nowhere to return to.
    static func signedOut() -> String {
        layout(title: "Signed out", body: "<h1>You are signed out</h1>\n<p>You can close this window.</p>")
    }

    /// An error page for links that cannot be followed.
    static func error(_ message: String) -> String {
        layout(title: "Cannot sign in", body: "<h1>Cannot sign in</h1>\n<p>\(escape(message))</p>")
    }

    static func layout(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#222}
        button{font-size:1rem;padding:.6rem 1.2rem;border-radius:.4rem;border:0;background:#2453d3;color:#fff}</style>
        </head><body>
        \(body)
        </body></html>
        """
    }

    /// HTML-escapes text for element content and quoted attributes.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
