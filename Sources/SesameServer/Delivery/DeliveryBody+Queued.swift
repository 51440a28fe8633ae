public import SesameAPI
public import SesameCore

extension DeliveryBody {
    /// The body of a stored delivery.
    public init(_ delivery: QueuedDelivery) {
        self.init(
            id: delivery.id, channel: delivery.channel, recipient: delivery.recipient, status: delivery.status.rawValue,
            attempts: delivery.attempts, createdAt: ISO8601.string(delivery.createdAt),
            updatedAt: ISO8601.string(delivery.updatedAt),
            nextAttemptAt: delivery.status == .pending ? ISO8601.string(delivery.nextAttemptAt) : nil,
            deadline: ISO8601.string(delivery.deadline), sentAt: delivery.sentAt.map(ISO8601.string),
            lastError: delivery.lastError)
    }
}

extension WebhookBody {
    /// The body of a stored endpoint; `secret` only when it was just created.
    public init(_ endpoint: WebhookEndpoint, secret: String? = nil) {
        self.init(
            id: endpoint.id, url: endpoint.url, events: endpoint.events, createdAt: ISO8601.string(endpoint.createdAt),
            secret: secret)
    }
}
