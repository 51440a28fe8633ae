public import Foundation

/// How a delivery worker claims and retries.
public struct DeliveryWorkerSettings: Sendable, Equatable {
    /// How long a claim holds a delivery. Longer than any provider call may take, so a live
    /// worker never loses a delivery it is still sending; a dead worker's claims come back
    /// after it.
    public var lease: TimeInterval = 120
    /// Deliveries claimed (and sent concurrently) at a time.
    public var batchSize = 16
    /// Seconds between looks at the queue when nothing wakes the worker (deliveries queued by
    /// other instances, retries coming due).
    public var pollInterval: TimeInterval = 1
    /// The delays between tries.
    public var backoff = DeliveryBackoff()

    /// Send within the request that queued a message, after its commit, instead of waking
    /// the worker: for tests that read a message as soon as a start answers. Off in servers,
    /// where a start must not wait for a provider.
    public var sendBeforeAnswering = false

    /// Creates the defaults.
    public init() {}
}
