/// A message ready to send: an email or a text.
public struct OutgoingMessage: Sendable, Equatable {
    /// Which channel carries it.
    public enum Channel: String, Codable, Sendable { case email, sms }

    public var channel: Channel
    /// An email address or an E.164 phone number.
    public var recipient: String
    /// Email only.
    public var subject: String?
    /// Plain text body.
    public var body: String
    /// Email only: the HTML alternative of `body`, sent as multipart/alternative when set.
    public var html: String?
    /// The one-time code, when the message carries one (for the console outbox).
    public var code: String?
    /// The sign-in link, when the message carries one (for the console outbox).
    public var link: String?

    /// Creates a message.
    public init(
        channel: Channel, recipient: String, subject: String?, body: String, html: String? = nil, code: String?,
        link: String?
    ) {
        (self.channel, self.recipient, self.subject) = (channel, recipient, subject)
        (self.body, self.html) = (body, html)
        (self.code, self.link) = (code, link)
    }
}

/// Delivers messages: the console outbox, SMTP, Twilio or an HTTP gateway.
///
/// ```swift
/// struct Printer: MessageSender {
///     func send(_ message: OutgoingMessage) async throws { print(message.body) }
/// }
/// ```
public protocol MessageSender: Sendable {
    /// Sends one message. Throws ``DeliveryError`` when the provider refuses it.
    func send(_ message: OutgoingMessage) async throws
    /// False for a channel with no provider: a start is then refused at once rather than
    /// queued for a delivery that cannot happen.
    var isConfigured: Bool { get }
}

extension MessageSender {
    public var isConfigured: Bool { true }
}

/// A provider refused or could not take a message.
public struct DeliveryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The provider's message, for the log only: it may name internal hosts, ports and accounts.
    public var message: String
    /// The provider's error code, if it gave one.
    public var providerCode: String?
    /// Whether sending the same message again cannot succeed (an SMTP 5xx reply, an invalid
    /// number at Twilio): the outbox then stops at once instead of retrying until expiry.
    public var isPermanent: Bool

    /// Creates a delivery error; transient unless `permanent`.
    public init(message: String, providerCode: String? = nil, permanent: Bool = false) {
        self.message = message
        self.providerCode = providerCode
        self.isPermanent = permanent
    }

    public var description: String { providerCode.map { "\(message) (Code: \($0))" } ?? message }
}
