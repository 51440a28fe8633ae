/// The hosted login page (`/authorize`): an address form, then a code form.
extension Pages {
    /// - Parameter passkeys: offer passkey sign-in too (autofill in the field, and a button).
    static func identifierForm(
        appName: String, fields: [(String, String)], hint: String? = nil, error: String?, passkeys: Bool = false
    ) -> String {
        let autocomplete = passkeys ? "username webauthn" : "username"
        let value = hint.map { " value=\"\(escape($0))\"" } ?? ""
        return form(
            title: "Sign in to \(appName)", action: "/authorize/start", fields: fields,
            intro: "Enter your email address or phone number (+15551234567). We will send you a code.",
            input:
                "<label>Email or phone<br><input name=\"username\" autocomplete=\"\(autocomplete)\"\(value) required autofocus>"
                + "</label>",
            button: "Send code", error: error, after: passkeys ? passkeyForm(fields) : "")
    }

    /// Filled and posted by ``PasskeyScript``; the button shows only when the browser has passkeys.
    private static func passkeyForm(_ fields: [(String, String)]) -> String {
        """
        <form id="passkey-form" method="post" action="/authorize/passkey">
        \(hiddenInputs(fields))
        <input type="hidden" name="auth_session"><input type="hidden" name="authn_response">
        <p><button type="button" id="passkey-button" hidden>Sign in with a passkey</button></p>
        <p id="passkey-alert" role="alert" style="color:#b00020"></p>
        </form>
        <script src="/authorize/passkey.js"></script>
        """
    }

    static func codeForm(appName: String, recipient: String, fields: [(String, String)], error: String?) -> String {
        form(
            title: "Sign in to \(appName)", action: "/authorize/verify", fields: fields,
            intro: "Enter the code we sent to \(recipient).",
            input: """
                <label>Code<br><input name="otp" inputmode="numeric" autocomplete="one-time-code" required autofocus></label>
                """,
            button: "Sign in", error: error)
    }

    private static func hiddenInputs(_ fields: [(String, String)]) -> String {
        fields.map { "<input type=\"hidden\" name=\"\(escape($0.0))\" value=\"\(escape($0.1))\">" }
            .joined(separator: "\n")
    }

    private static func form(
        title: String, action: String, fields: [(String, String)], intro: String, input: String, button: String,
        error: String?, after: String = ""
    ) -> String {
        let hidden = hiddenInputs(fields)
        let message = error.map { "<p role=\"alert\" style=\"color:#b00020\">\(escape($0))</p>" } ?? ""
        return layout(
            title: title,
            body: """
                <h1>\(escape(title))</h1>
                <p>\(escape(intro))</p>
                \(message)
                <form method="post" action="\(action)">
                \(hidden)
                \(input)
                <p><button type="submit">\(escape(button))</button></p>
                </form>
                \(after)
                """)
    }
}
