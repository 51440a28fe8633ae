/// The message templates there are: one per message kind and part.
public enum MessageTemplateNames {
    /// The layout every shipped HTML email inherits from (`{{<email-layout}}…`); overridable
    /// like the others, to restyle every email at once.
    public static let layout = "email-layout.html"

    /// Every template name, layout first.
    public static let all: [String] = [layout] + kinds.flatMap(parts(of:))

    /// The messages: email or SMS, with a code or a link; and the email that warns a person
    /// someone is guessing their codes (`email-notice`).
    public static let kinds = ["email-code", "email-link", "sms-code", "sms-link", "email-notice"]

    /// The parts of a message kind: an email has a subject, a text and an HTML part.
    public static func parts(of kind: String) -> [String] {
        kind.hasPrefix("email-") ? ["\(kind).subject", "\(kind).text", "\(kind).html"] : ["\(kind).text"]
    }

    /// Whether a template is plain text (subject, text, SMS): rendered without HTML escaping.
    package static func isText(_ name: String) -> Bool {
        !name.hasSuffix(".html")
    }

    /// The partial name under which the layout is registered for `{{<email-layout}}`.
    package static let layoutPartial = "email-layout"
}
