import Foundation
import Logging

extension DeliveryWorker {
    /// The first pause before storing an outcome again; it doubles up to a third of the lease.
    static let recordingRetryDelay: TimeInterval = 0.25

    /// Stores the outcome of a claimed delivery, trying again with backoff while storage
    /// fails (a database restarting ends every connection), until it is stored or the worker
    /// is cancelled. The delivery stays among the sends in flight meanwhile, so its lease is
    /// renewed as soon as storage answers again: a message the provider accepted is sent
    /// again only when this process dies before its outcome is stored.
    /// - Returns: whether this worker still held the lease (false: another worker claimed it),
    ///   or nil when cancelled before the outcome could be stored.
    func record(_ outcome: DeliveryOutcome, of delivery: QueuedDelivery) async -> Bool? {
        let backoff = DeliveryBackoff(
            base: Self.recordingRetryDelay, cap: max(Self.recordingRetryDelay, settings.lease / 3))
        var failures = 0
        while true {
            do {
                return try await storage.finishDelivery(id: delivery.id, owner: owner, outcome: outcome, at: clock.now())
            } catch {
                failures += 1
                let metadata: Logger.Metadata = [
                    "delivery": "\(delivery.id)", "error": "\(error)", "tries": "\(failures)",
                ]
                guard !Task.isCancelled else {
                    logger.error("delivery outcome not recorded before the worker stopped", metadata: metadata)
                    return nil
                }
                // One line for the first failure and one for every tenth: an outage is not a flood.
                if failures == 1 || failures.isMultiple(of: 10) {
                    logger.warning("delivery outcome not recorded yet; trying again", metadata: metadata)
                }
                try? await Task.sleep(for: .seconds(backoff.delay(afterAttempts: failures, random: random)))
            }
        }
    }
}
