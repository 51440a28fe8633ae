public import Foundation

/// The durable outbox. Claims must hand each due delivery to one worker at a time across
/// every instance sharing the database (row locks with `SKIP LOCKED` on PostgreSQL, the single
/// writer on SQLite).
public protocol DeliveryRepository: Sendable {
    /// Stores a challenge and the delivery that carries its secret in one transaction: a
    /// challenge is never stored without its message, nor a message without its challenge.
    /// `audit` (the event that records the sending) is written in the same transaction. With
    /// `gate`, the recipient's stored account decides in the same operation whether the
    /// delivery is stored as given or suppressed without its payload (``DeliveryGate``).
    /// - Returns: whether the delivery was stored to be sent (false: suppressed by `gate`).
    @discardableResult
    func createChallenge(_ challenge: Challenge, delivery: QueuedDelivery, audit: AuditEvent?, gate: DeliveryGate?)
        async throws -> Bool
    /// Stores deliveries (webhook calls) in one transaction.
    func enqueueDeliveries(_ deliveries: [QueuedDelivery]) async throws
    /// Leases up to `limit` pending deliveries due at `now` whose lease (if any) has run out,
    /// to `owner` until `leaseUntil`, counting an attempt on each; oldest due first.
    func claimDeliveries(owner: String, now: Date, leaseUntil: Date, limit: Int) async throws -> [QueuedDelivery]
    /// Extends `owner`'s leases on `ids` to `until` (a worker still sending keeps its claims);
    /// returns how many it still held.
    func renewDeliveryLeases(ids: [String], owner: String, until: Date) async throws -> Int
    /// Records the outcome of a claimed delivery; false (and nothing changes) when `owner` no
    /// longer holds its lease.
    func finishDelivery(id: String, owner: String, outcome: DeliveryOutcome, at: Date) async throws -> Bool
    /// Deliveries newest first, optionally of one status or to one recipient.
    func deliveries(status: QueuedDelivery.Status?, recipient: String?, limit: Int) async throws -> [QueuedDelivery]
    /// One delivery, or nil.
    func delivery(id: String) async throws -> QueuedDelivery?
    /// Makes a failed or pending delivery due now with a fresh attempt count and `deadline`;
    /// false when there is no such delivery or it was sent, suppressed, or erased.
    func retryDelivery(id: String, at: Date, deadline: Date) async throws -> Bool
    /// How many deliveries are pending, and when the oldest of them was created.
    func pendingDeliveries() async throws -> (count: Int, oldest: Date?)
}

extension DeliveryRepository {
    /// Stores a challenge and its delivery, as given, in one transaction.
    public func createChallenge(_ challenge: Challenge, delivery: QueuedDelivery, audit: AuditEvent?) async throws {
        _ = try await createChallenge(challenge, delivery: delivery, audit: audit, gate: nil)
    }
}
