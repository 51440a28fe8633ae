/// The texts of passwordless messages. Kept apart from the flow so operators can change
/// wording without touching login logic.
public struct MessageTemplates: Sendable {
    /// The product name shown in messages (the application's name when known).
    public var productName: String

    /// Creates the default templates.
    public init(productName: String = "Sesame") {
        self.productName = productName
    }

    /// An email carrying a one-time code.
    public func emailCode(to recipient: String, code: String, appName: String, lifetimeSeconds: Int) -> OutgoingMessage {
        let minutes = max(1, lifetimeSeconds / 60)
        let body = """
            Your verification code for \(appName) is: \(code)

            It expires in \(minutes) minute\(minutes == 1 ? "" : "s"). If you did not ask for it, ignore this email.
            """
        return OutgoingMessage(
            channel: .email, recipient: recipient, subject: "Your \(appName) verification code: \(code)",
            body: body, code: code, link: nil)
    }

    /// An email carrying a magic link.
    public func emailLink(to recipient: String, link: String, appName: String, lifetimeSeconds: Int) -> OutgoingMessage {
        let minutes = max(1, lifetimeSeconds / 60)
        let body = """
            Click the link below to sign in to \(appName):

            \(link)

            The link works once and expires in \(minutes) minutes. If you did not ask for it, ignore this email.
            """
        return OutgoingMessage(
            channel: .email, recipient: recipient, subject: "Sign in to \(appName)", body: body, code: nil, link: link)
    }

    /// A text carrying a one-time code (or a native-app link).
    public func smsCode(to recipient: String, code: String?, link: String?, appName: String) -> OutgoingMessage {
        let body = link.map { "Sign in to \(appName): \($0)" } ?? "Your verification code for \(appName) is: \(code ?? "")"
        return OutgoingMessage(channel: .sms, recipient: recipient, subject: nil, body: body, code: code, link: link)
    }
}
