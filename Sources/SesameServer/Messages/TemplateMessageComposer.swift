import Foundation
public import SesameCore

/// Writes passwordless messages from the templates (``MessageTemplates``): an email's
/// subject, text and HTML, or a text message, in the recipient's language.
public struct TemplateMessageComposer: MessageComposer {
    let templates: MessageTemplates

    /// Creates a composer over `templates`.
    public init(templates: MessageTemplates) {
        self.templates = templates
    }

    public func compose(_ content: MessageContent) async throws -> OutgoingMessage {
        let overrides = try await templates.storage.messageTemplates()
        let language = templates.language(for: content, overrides: overrides)
        let kind = "\(content.channel.rawValue)-\(content.kind.rawValue)"
        func part(_ suffix: String) throws -> String {
            try templates.render("\(kind).\(suffix)", content: content, language: language, overrides: overrides)
        }
        var message = OutgoingMessage(
            channel: content.channel, recipient: content.recipient, subject: nil,
            body: try part("text").trimmingWhitespaceAndNewlines(), code: content.code, link: content.link)
        if content.channel == .email {
            // One line, whatever the template's whitespace: a subject cannot carry a line break.
            message.subject = try part("subject").split(whereSeparator: \.isNewline).map {
                $0.trimmingWhitespace()
            }
            .filter { !$0.isEmpty }.joined(separator: " ")
            message.html = try part("html")
        }
        return message
    }
}
