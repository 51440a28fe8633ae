public import Foundation
public import Logging

/// Removes expired rows (challenges, link requests, passkey sessions, authorization codes,
/// device assertion ids and nonces, old refresh tokens, spent rate-limit windows, old console outbox messages, week-old deliveries,
/// finished jobs a week old, audit events past their retention),
/// so that unauthenticated endpoints cannot grow the database without bound. Every instance
/// runs one; the deletes only touch dead rows, so instances sweeping at once is harmless.
public struct Sweeper: Sendable {
    let storage: any SweepRepository & EventRepository & JobRepository
    let clock: any SesameClock
    let interval: TimeInterval
    let logger: Logger
    /// How long audit events are kept.
    var auditRetention: TimeInterval = 90 * 86400

    /// Rate-limit windows are at most a day long; a window that began two days ago is over.
    static let windowRetention: TimeInterval = 2 * 86400
    /// Console outbox messages are for development and are kept for a day.
    static let outboxRetention: TimeInterval = 86400
    /// Deliveries (sent, failed, suppressed) stay a week for `sesame admin deliveries list`.
    static let deliveryRetention: TimeInterval = 7 * 86400
    /// Finished jobs (with their files) stay a week for `GET /api/v2/jobs/{id}`.
    static let jobRetention: TimeInterval = 7 * 86400

    /// Creates a sweeper that runs every `interval` seconds.
    public init(
        storage: any SweepRepository & EventRepository & JobRepository, clock: any SesameClock, interval: TimeInterval,
        auditRetention: TimeInterval = 90 * 86400, logger: Logger
    ) {
        self.auditRetention = auditRetention
        self.storage = storage
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    /// One sweep, now.
    /// - Returns: how many rows of each kind were removed.
    @discardableResult
    public func sweep() async throws -> SweepCounts {
        let now = clock.now()
        var counts = try await storage.sweep(
            now: now, windowsBefore: now.addingTimeInterval(-Self.windowRetention),
            outboxBefore: now.addingTimeInterval(-Self.outboxRetention),
            deliveriesBefore: now.addingTimeInterval(-Self.deliveryRetention))
        counts.removed["audit_events"] = try await storage.deleteAuditEvents(before: now.addingTimeInterval(-auditRetention))
        counts.removed["jobs"] = try await storage.deleteJobs(createdBefore: now.addingTimeInterval(-Self.jobRetention))
        let removed = counts.removed.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        logger.info(
            "sweep removed \(counts.total) expired row(s)",
            metadata: Dictionary(uniqueKeysWithValues: removed.map { ($0.key, .stringConvertible($0.value)) }))
        return counts
    }

    /// Sweeps every interval until cancelled; a failed sweep is logged and retried next time.
    public func run() async {
        while !Task.isCancelled {
            // Up to a tenth of the interval of jitter, so instances started together spread out.
            let delay = interval * Double.random(in: 0.9...1.0)
            do {
                try await Task.sleep(for: .seconds(delay))
            } catch {
                return
            }
            do {
                try await sweep()
            } catch {
                logger.warning("sweep failed; retrying at the next interval", metadata: ["error": "\(error)"])
            }
        }
    }
}
