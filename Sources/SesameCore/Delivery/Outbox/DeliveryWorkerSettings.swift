public import Foundation

/// How a delivery worker claims and retries.
public struct DeliveryWorkerSettings: Sendable, Equatable {
    /// How long a claim holds a delivery without renewal. A live worker renews the claims of
    /// the sends it is making every third of this, so a slow provider never loses it its
    /// claim; a worker that dies (`kill -9`, a power cut) holds its messages this long at most
    /// before any instance, or itself restarted, sends them.
    public var lease: TimeInterval = 15
    /// Deliveries sent concurrently; a slow one holds only its own slot.
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
