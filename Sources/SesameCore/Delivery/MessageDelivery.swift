/// The senders for each channel and the templates that fill them.
public struct MessageDelivery: Sendable {
    public var email: any MessageSender
    public var sms: any MessageSender
    public var templates: MessageTemplates

    /// Creates a delivery set.
    public init(email: any MessageSender, sms: any MessageSender, templates: MessageTemplates = MessageTemplates()) {
        self.email = email
        self.sms = sms
        self.templates = templates
    }

    /// Sends `message` on its channel.
    public func send(_ message: OutgoingMessage) async throws {
        switch message.channel {
        case .email: try await email.send(message)
        case .sms: try await sms.send(message)
        }
    }
}
