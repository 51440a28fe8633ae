import Foundation

/// What operators do with the outbox (`sesame admin deliveries`): see every delivery and
/// its provider's last answer, and send a failed one again.
public struct DeliveryAdministration: Sendable {
    let storage: any DeliveryRepository
    let clock: any SesameClock

    /// Creates the administration over `storage`.
    public init(storage: any DeliveryRepository, clock: any SesameClock = SystemClock()) {
        self.storage = storage
        self.clock = clock
    }

    /// Deliveries newest first, optionally of one status or to one recipient.
    public func list(status: QueuedDelivery.Status? = nil, recipient: String? = nil, limit: Int = 50) async throws
        -> [QueuedDelivery]
    {
        try await storage.deliveries(status: status, recipient: recipient, limit: limit)
    }

    /// Makes a failed (or waiting) delivery due now, with a fresh attempt count; a worker
    /// (of any instance) sends it at its next look at the queue.
    /// - Throws: 404 for an unknown id; 409 for one that was sent or suppressed, or a message
    ///   whose code or link has expired (sending it could not sign anyone in).
    public func retry(id: String) async throws -> QueuedDelivery {
        guard let delivery = try await storage.delivery(id: id) else {
            throw SesameError(.notFound, .notFound, "No delivery has the id \(id).")
        }
        let now = clock.now()
        let isMessage = delivery.channel != WebhookChannel.name
        guard delivery.status == .failed || delivery.status == .pending else {
            throw SesameError(.conflict, "conflict", "Delivery \(id) is \(delivery.status.rawValue): there is nothing to retry.")
        }
        if isMessage && delivery.deadline <= now {
            throw SesameError(
                .conflict, "conflict",
                "The code or link in delivery \(id) expired at \(ISO8601.string(delivery.deadline)); ask for a new one.")
        }
        let deadline = isMessage ? delivery.deadline : now.addingTimeInterval(WebhookEvents.retryWindow)
        guard try await storage.retryDelivery(id: id, at: now, deadline: deadline) else {
            throw SesameError(.conflict, "conflict", "Delivery \(id) cannot be retried: its payload is gone.")
        }
        return try await storage.delivery(id: id) ?? delivery
    }
}
