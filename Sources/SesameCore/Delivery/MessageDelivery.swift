/// The senders for each channel and the composer that writes their messages.
public struct MessageDelivery: Sendable {
    public var email: any MessageSender
    public var sms: any MessageSender
    public var composer: any MessageComposer
    /// Posts webhook calls; without one, webhook deliveries fail (and say why).
    public var webhooks: (any WebhookTransport)?
    /// Posts back-channel logout tokens to applications; without one, they fail (and say why).
    public var logoutTokens: (any WebhookTransport)?

    /// Creates a delivery set.
    public init(
        email: any MessageSender, sms: any MessageSender, composer: any MessageComposer = PlainMessageComposer(),
        webhooks: (any WebhookTransport)? = nil, logoutTokens: (any WebhookTransport)? = nil
    ) {
        self.logoutTokens = logoutTokens
        self.email = email
        self.sms = sms
        self.composer = composer
        self.webhooks = webhooks
    }

    /// Sends `message` on its channel.
    public func send(_ message: OutgoingMessage) async throws {
        switch message.channel {
        case .email: try await email.send(message)
        case .sms: try await sms.send(message)
        }
    }
}
