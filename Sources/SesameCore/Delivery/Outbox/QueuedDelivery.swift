public import Foundation

/// One message or webhook call in the durable outbox: written in the same transaction as what
/// caused it, claimed by a delivery worker under a lease, sent, and its outcome recorded.
public struct QueuedDelivery: Sendable, Equatable {
    /// Where a delivery stands.
    public enum Status: String, Sendable, CaseIterable {
        /// Waiting for its first send or for a retry.
        case pending
        /// The provider took it.
        case sent
        /// Given up: a permanent refusal, or no success before its deadline.
        case failed
        /// Never to be sent: the recipient is blocked, or unknown while signup is off. Written
        /// anyway so that a start costs the same for every recipient.
        case suppressed
    }

    public var id: String
    /// `email`, `sms` or `webhook`.
    public var channel: String
    /// The address, number or webhook URL (for listings; the payload is what is sent).
    public var recipient: String
    /// What to send, sealed (``PayloadSeal``): it holds a live code or link until sent.
    public var payload: [UInt8]
    public var status: Status
    /// Sends tried so far (a claim counts as one).
    public var attempts: Int
    /// When the next send is due.
    public var nextAttemptAt: Date
    /// No send after this: a code's expiry, or a webhook's retry window.
    public var deadline: Date
    /// The worker holding the delivery, and until when (a worker that dies loses it then).
    public var leaseOwner: String?
    public var leaseUntil: Date?
    /// The provider's last answer, for operators only (it may name internal hosts).
    public var lastError: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var sentAt: Date?

    /// Creates a pending delivery due now.
    public init(
        id: String, channel: String, recipient: String, payload: [UInt8], status: Status = .pending, deadline: Date,
        createdAt: Date
    ) {
        (self.id, self.channel, self.recipient, self.payload) = (id, channel, recipient, payload)
        (self.status, self.attempts, self.deadline) = (status, 0, deadline)
        // Due at once, and untouched since it was made.
        (self.nextAttemptAt, self.createdAt, self.updatedAt) = (createdAt, createdAt, createdAt)
    }
}

/// How a claimed delivery ended, as its worker records it.
public enum DeliveryOutcome: Sendable, Equatable {
    /// Taken by the provider: the payload is erased.
    case sent
    /// A transient failure: due again at `at`.
    case retry(at: Date, error: String)
    /// Given up for good.
    case failed(error: String)
}
