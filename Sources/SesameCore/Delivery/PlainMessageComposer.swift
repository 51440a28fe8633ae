/// The built-in English wording, as plain text: what a ``MessageDelivery`` uses when it is
/// given no other composer (the server gives it the template composer).
public struct PlainMessageComposer: MessageComposer {
    /// Creates the composer.
    public init() {}

    public func compose(_ content: MessageContent) async throws -> OutgoingMessage {
        let app = content.applicationName
        let minutes = content.lifetimeMinutes
        let expiry = "It expires in \(minutes) minute\(minutes == 1 ? "" : "s")"
        if content.kind == .notice {
            let body = """
                Someone has been entering wrong sign-in codes for this address at \(app). They were \
                stopped, and your own sign-ins still work. If it was not you, you need do nothing; \
                never share a code you receive.
                """
            return message(content, subject: "Someone is trying to sign in to \(app) as you", body: body)
        }
        switch (content.channel, content.link) {
        case (.sms, let link?):
            return message(content, subject: nil, body: "Sign in to \(app): \(link)")
        case (.sms, nil):
            return message(content, subject: nil, body: "Your verification code for \(app) is: \(content.code ?? "")")
        case (.email, let link?):
            let body = """
                Click the link below to sign in to \(app):

                \(link)

                The link works once. \(expiry). If you did not ask for it, ignore this email.
                """
            return message(content, subject: "Sign in to \(app)", body: body)
        case (.email, nil):
            let code = content.code ?? ""
            let body = """
                Your verification code for \(app) is: \(code)

                \(expiry). If you did not ask for it, ignore this email.
                """
            return message(content, subject: "Your \(app) verification code: \(code)", body: body)
        }
    }

    private func message(_ content: MessageContent, subject: String?, body: String) -> OutgoingMessage {
        OutgoingMessage(
            channel: content.channel, recipient: content.recipient, subject: subject, body: body, code: content.code,
            link: content.link)
    }
}
