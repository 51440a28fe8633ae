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

    /// Called after the transaction that queued deliveries committed.
    func queued() async {
        if settings.sendBeforeAnswering {
            await worker.drain()
        } else {
            worker.wakeUp()
        }
    }
}

/// The channel name of webhook calls in the outbox.
enum WebhookChannel {
    static let name = "webhook"
}
