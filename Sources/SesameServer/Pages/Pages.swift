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
