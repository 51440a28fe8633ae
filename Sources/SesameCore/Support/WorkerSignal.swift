import Foundation
import Synchronization

/// The wake-ups and the stop of a background worker that every instance runs (the outbox's,
/// the jobs'): it works at each wake-up and every poll interval, so work stored by another
/// instance is found, and a stop lets the work in hand finish.
final class WorkerSignal: Sendable {
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let stopping = Atomic<Bool>(false)

    init() {
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks the running worker to look now.
    func wakeUp() { wake.yield() }

    /// Stops the worker once its current work ends.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        wake.yield()
    }

    /// Whether ``stop()`` was called.
    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Calls `work` at each wake-up and every `interval` seconds until cancelled or stopped.
    /// Call once.
    func run(every interval: TimeInterval, _ work: () async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [wake] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(interval))
                    wake.yield()
                }
            }
            wake.yield()
            for await _ in wakeups {
                await work()
                if isStopping { break }
            }
            group.cancelAll()
        }
    }
}
