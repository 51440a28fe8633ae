/// A delivery of the durable outbox as `sesame admin deliveries list --json` shows it. The
/// payload (which holds the code or link until sent) is never shown.
public struct DeliveryBody: Codable, Sendable, Equatable {
    public var id: String
    /// `email`, `sms` or `webhook`.
    public var channel: String
    /// The address, number or webhook URL.
    public var recipient: String
    /// `pending`, `sent`, `failed` or `suppressed`.
    public var status: String
    /// Sends tried so far.
    public var attempts: Int
    /// ISO 8601 instants.
    public var createdAt: String
    public var updatedAt: String
    /// When the next send is due (pending deliveries).
    public var nextAttemptAt: String?
    /// No send after this: the code's or link's expiry, or the end of a webhook's retries.
    public var deadline: String
    public var sentAt: String?
    /// The provider's last answer: for operators, never shown to the person signing in.
    public var lastError: String?

    enum CodingKeys: String, CodingKey {
        case id, channel, recipient, status, attempts, deadline
        case createdAt = "created_at", updatedAt = "updated_at", nextAttemptAt = "next_attempt_at"
        case sentAt = "sent_at", lastError = "last_error"
    }

    /// Creates a body.
    public init(
        id: String, channel: String, recipient: String, status: String, attempts: Int, createdAt: String,
        updatedAt: String, nextAttemptAt: String?, deadline: String, sentAt: String?, lastError: String?
    ) {
        self.id = id
        self.channel = channel
        self.recipient = recipient
        self.status = status
        self.attempts = attempts
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.nextAttemptAt = nextAttemptAt
        self.deadline = deadline
        self.sentAt = sentAt
        self.lastError = lastError
    }
}
