import Foundation

/// The sending side of the durable outbox: seals what is to be sent into a
/// ``QueuedDelivery`` for the caller's transaction and wakes the worker after the commit.
public struct Outbox: Sendable {
    /// The worker of this instance. The outbox seals, stamps and schedules with the worker's
    /// own seal, clock, randomness and settings, so what it queues is what the worker can open.
    public let worker: DeliveryWorker

    var seal: PayloadSeal { worker.seal }
    var clock: any SesameClock { worker.clock }
    var random: any RandomSource { worker.random }
    var settings: DeliveryWorkerSettings { worker.settings }

    /// A delivery carrying `content`, due now and given up at `deadline` (the code's or
    /// link's expiry). The storage may still suppress it (``DeliveryGate``).
    func message(_ content: MessageContent, deadline: Date) throws -> QueuedDelivery {
        let sealed = try seal.seal(content.directJSON().map { Data($0) } ?? JSONEncoder().encode(content))
        let now = clock.now()
        return QueuedDelivery(
            id: random.orderedHex(at: now), channel: content.channel.rawValue, recipient: content.recipient,
            payload: sealed, deadline: deadline, createdAt: now)
    }

    /// ``message(_:deadline:)`` stored already leased to this instance's worker, which is
    /// handed it after the commit (``queued(handing:)``) instead of claiming it: one write
    /// fewer per message. If this instance dies first, the lease runs out and any worker
    /// claims the message, as it would a claimed one.
    func leasedMessage(_ content: MessageContent, deadline: Date) throws -> QueuedDelivery {
        var delivery = try message(content, deadline: deadline)
        delivery.leaseOwner = worker.owner
        delivery.leaseUntil = delivery.createdAt.addingTimeInterval(settings.lease)
        // As a claim would have counted it.
        delivery.attempts = 1
        return delivery
    }

    /// Called after the transaction that queued deliveries committed.
    func queued() async {
        if settings.sendBeforeAnswering {
            await worker.drain()
        } else {
            worker.wakeUp()
        }
    }

    /// Called after the transaction that stored `delivery`, made by ``leasedMessage(_:deadline:)``,
    /// committed, when the storage did not suppress it.
    func queued(handing delivery: QueuedDelivery) async {
        await worker.release(worker.hand(delivery))
        if settings.sendBeforeAnswering { await worker.drain() }
    }
}

/// The channel name of webhook calls in the outbox.
enum WebhookChannel {
    static let name = "webhook"
}
