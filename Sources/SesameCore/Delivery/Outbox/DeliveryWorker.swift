import Foundation
import Logging
import Synchronization

/// Sends what the durable outbox holds. Every instance runs one; the storage's claims
/// make each delivery go to one worker at a time, and a worker that dies mid-send loses its
/// claim when the lease runs out (that one message may then be sent twice).
public final class DeliveryWorker: Sendable {
    let storage: any SesameStorage
    let handlers: [String: any DeliveryHandler]
    let seal: PayloadSeal
    let clock: any SesameClock
    let random: any RandomSource
    let settings: DeliveryWorkerSettings
    let logger: Logger
    /// This worker's name in leases: distinct per process, so a restarted instance does not
    /// think it still holds its predecessor's claims.
    let owner: String
    private let signal = WorkerSignal()
    /// Counts ``wakeUp()`` calls, so a drain claims again only when something was queued
    /// since the last claim (or that claim was full): an empty claim is a write.
    private let queued = Atomic<Int>(0)
    /// The count of ``queued`` the last claim saw (-1: none yet).
    private let claimedQueued = Atomic<Int>(-1)
    /// When the last claim was made (milliseconds since 1970 on the worker's clock).
    private let lastClaim = Atomic<Int64>(.min)
    /// Deliveries stored already leased to this worker, to send without a claim (``hand(_:)``).
    private let handed = Mutex<[QueuedDelivery]>([])

    init(
        storage: any SesameStorage, handlers: [String: any DeliveryHandler], seal: PayloadSeal,
        clock: any SesameClock, random: any RandomSource, settings: DeliveryWorkerSettings, logger: Logger
    ) {
        self.storage = storage
        self.handlers = handlers
        self.seal = seal
        self.clock = clock
        self.random = random
        self.settings = settings
        self.logger = logger
        self.owner = random.hex(8)
    }

    /// Asks the running worker to look at the queue now (something was just queued here).
    public func wakeUp() {
        queued.add(1, ordering: .relaxed)
        signal.wakeUp()
    }

    /// Sends `delivery`, which was stored already leased to this worker and committed
    /// (``Outbox/leasedMessage(_:deadline:)``), without claiming it: the next drain takes it first.
    ///
    /// At most four batches wait in memory: while a stalled provider holds every slot, a flood
    /// of starts would otherwise grow the process without bound. The oldest beyond that is
    /// let go, for ``release(_:)``: left leased in storage, it waited out the whole lease
    /// (15 s) for its claim, and a burst of more starts than that at once (96 from one load
    /// generator) had people wait that long for their codes.
    /// - Returns: the deliveries let go.
    func hand(_ delivery: QueuedDelivery) -> [QueuedDelivery] {
        let limit = max(1, settings.batchSize * 4)
        let overflow = handed.withLock { handed in
            handed.append(delivery)
            let excess = handed.count - limit
            guard excess > 0 else { return [QueuedDelivery]() }
            defer { handed.removeFirst(excess) }
            return Array(handed.prefix(excess))
        }
        signal.wakeUp()
        return overflow
    }

    /// Ends this worker's leases of `deliveries`, let go from memory by ``hand(_:)``, so that
    /// the next claim (here, or at any instance) takes them from storage at once. When the
    /// storage fails, their leases run out as before.
    func release(_ deliveries: [QueuedDelivery]) async {
        guard !deliveries.isEmpty else { return }
        do {
            _ = try await storage.renewDeliveryLeases(ids: deliveries.map(\.id), owner: owner, until: clock.now())
        } catch {
            logger.warning("delivery lease not ended; it runs out instead", metadata: ["error": "\(error)"])
            return
        }
        // A claim looks at storage only when something was queued since the last one.
        wakeUp()
    }

    /// Stops claiming (a graceful shutdown): the sends in flight finish and their outcomes
    /// are recorded, then ``run()`` returns. A send cut off instead (by cancelling `run()`)
    /// is sent again once its lease runs out, maybe twice.
    public func stop() {
        signal.stop()
    }

    /// Whether ``stop()`` was called.
    var isStopping: Bool { signal.isStopping }

    /// Sends due deliveries until cancelled or stopped: at each wake-up and every poll
    /// interval. Call once.
    public func run() async {
        await signal.run(every: settings.pollInterval) { await drain() }
    }

    /// Claims and sends due deliveries until none is due and none is in flight (once the
    /// worker is stopped, it claims no more and ends when the sends in flight end). Up to
    /// `batchSize` sends run at once and a free slot is filled at once, so one slow provider
    /// call holds up only itself; the claims of sends in flight are renewed meanwhile.
    /// - Returns: how many were tried.
    @discardableResult
    public func drain() async -> Int {
        let sending = SendsInFlight()
        return await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.renewLeases(of: sending) }
            var (tried, inFlight) = (0, 0)
            // A drain that hand-offs started and keep going looks at storage when something
            // was queued there, and once a poll interval (retries coming due, other
            // instances' work): not once per message, since each look is a write.
            var mayHaveMore = handed.withLock { $0.isEmpty }
            while !Task.isCancelled {
                let wanted = settings.batchSize - inFlight
                // Handed deliveries are leased to this worker already: they are sent even
                // while stopping, like the claimed ones in flight.
                var claimed = takeHanded(upTo: wanted)
                let room = wanted - claimed.count
                let seen = queued.load(ordering: .relaxed)
                let look = mayHaveMore || claimedQueued.load(ordering: .relaxed) != seen || claimIsDue()
                if room > 0 && !isStopping && look {
                    claimedQueued.store(seen, ordering: .relaxed)
                    let fresh = await claim(upTo: room)
                    mayHaveMore = fresh.count == room
                    claimed += fresh
                }
                for delivery in claimed {
                    sending.ids.withLock { _ = $0.insert(delivery.id) }
                    group.addTask {
                        await self.process(delivery)
                        sending.ids.withLock { _ = $0.remove(delivery.id) }
                    }
                }
                (tried, inFlight) = (tried + claimed.count, inFlight + claimed.count)
                if claimed.isEmpty {
                    // Nothing more to claim now: wait for a send to end, or stop when none is
                    // left. A retry a send schedules is due later, and found by the next poll.
                    guard inFlight > 0, await group.next() != nil else { break }
                    inFlight -= 1
                }
            }
            group.cancelAll()
            return tried
        }
    }

    /// Up to `limit` of the handed deliveries, oldest first. One that waited here until less
    /// than half its lease was left is dropped instead: its lease is not renewed while it
    /// waits, so another worker may claim it once the lease runs out, and both would send it.
    /// It stays in storage, to be claimed like any other.
    private func takeHanded(upTo limit: Int) -> [QueuedDelivery] {
        guard limit > 0 else { return [] }
        let fresh = clock.now().addingTimeInterval(settings.lease / 2)
        return handed.withLock { handed in
            var taken: [QueuedDelivery] = []
            while taken.count < limit, !handed.isEmpty {
                let delivery = handed.removeFirst()
                if let until = delivery.leaseUntil, until > fresh { taken.append(delivery) }
            }
            return taken
        }
    }

    /// Whether a poll interval has passed since the last claim.
    private func claimIsDue() -> Bool {
        let last = lastClaim.load(ordering: .relaxed)
        return last == .min || clock.now().epochMilliseconds - last >= Int64(settings.pollInterval * 1000)
    }

    /// Up to `limit` due deliveries, leased to this worker; none when storage is down.
    private func claim(upTo limit: Int) async -> [QueuedDelivery] {
        let now = clock.now()
        lastClaim.store(now.epochMilliseconds, ordering: .relaxed)
        do {
            return try await storage.claimDeliveries(
                owner: owner, now: now, leaseUntil: now.addingTimeInterval(settings.lease), limit: limit)
        } catch {
            logger.warning("delivery queue unavailable; trying again shortly", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// Every third of a lease, extends the leases of the sends in flight, until cancelled.
    private func renewLeases(of sending: SendsInFlight) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(settings.lease / 3))
            let ids = sending.ids.withLock { Array($0) }
            guard !Task.isCancelled, !ids.isEmpty else { continue }
            _ = try? await storage.renewDeliveryLeases(
                ids: ids, owner: owner, until: clock.now().addingTimeInterval(settings.lease))
        }
    }

    private func process(_ delivery: QueuedDelivery) async {
        let outcome = await attempt(delivery)
        // Once the provider has the message, the outcome must be stored: given up, the lease
        // would run out and another worker would send the message again.
        guard let recorded = await record(outcome, of: delivery) else { return }
        if !recorded {
            logger.warning("delivery lease lost before its outcome was recorded", metadata: ["delivery": "\(delivery.id)"])
        }
        await report(outcome, of: delivery)
    }

    /// One send, and what it means for the delivery.
    private func attempt(_ delivery: QueuedDelivery) async -> DeliveryOutcome {
        let now = clock.now()
        guard now < delivery.deadline else {
            return .failed(error: "not sent before its deadline" + (delivery.lastError.map { ": \($0)" } ?? ""))
        }
        guard let handler = handlers[delivery.channel] else {
            return .failed(error: "no sender for channel \(delivery.channel)")
        }
        let payload: Data
        do {
            payload = try seal.open(delivery.payload)
        } catch {
            return .failed(error: "payload cannot be opened with the server's secrets")
        }
        do {
            try await handler.deliver(payload)
            return .sent
        } catch let error as DeliveryError where error.isPermanent {
            return .failed(error: error.description)
        } catch {
            let next = clock.now().addingTimeInterval(settings.backoff.delay(afterAttempts: delivery.attempts, random: random))
            let detail = (error as? DeliveryError)?.description ?? "\(error)"
            return next < delivery.deadline ? .retry(at: next, error: detail) : .failed(error: "gave up: \(detail)")
        }
    }

    private func report(_ outcome: DeliveryOutcome, of delivery: QueuedDelivery) async {
        let metadata: Logger.Metadata = [
            "delivery": "\(delivery.id)", "channel": "\(delivery.channel)", "attempt": "\(delivery.attempts)",
        ]
        let outcomeName: String
        switch outcome {
        case .sent: outcomeName = "sent"
        case .retry: outcomeName = "retry"
        case .failed: outcomeName = "failed"
        }
        SesameMetrics.delivery(channel: delivery.channel, outcome: outcomeName)
        switch outcome {
        case .sent:
            logger.info("delivery sent", metadata: metadata)
        case .retry(let at, let error):
            logger.warning(
                "delivery failed; retrying",
                metadata: metadata.merging(["error": "\(error)", "retry_at": "\(at)"]) { $1 })
        case .failed(let error):
            logger.error("delivery given up", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            await AuditLog(storage: storage, clock: clock, logger: logger)
                .record(.deliveryFailed, detail: "\(delivery.channel) delivery \(delivery.id) to \(delivery.recipient): \(error)")
        }
    }
}

/// The deliveries a drain is sending, whose leases it renews.
private final class SendsInFlight: Sendable {
    let ids = Mutex<Set<String>>([])
}
