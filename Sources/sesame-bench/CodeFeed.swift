import Foundation
import NIOCore
import SesameCore
import SesameStorageSQL
import Synchronization

/// Codes from the console outbox for the load generator's logins: one task follows the
/// outbox (a read each millisecond on SQLite, whatever the concurrency) and hands each code to the
/// login waiting for it. Polling per login instead made the generator's own CPU grow with
/// the concurrency and take the cores from the server it measures. With no login waiting
/// and nothing new, the follower sleeps until a login asks: the refresh and device-key
/// benchmarks need codes only to enrol, and a reader polling through their load cost the
/// generator a tenth of a core.
///
/// The follower, its pauses and each login's wait run on the workers' event loop: on Swift's
/// pool, with a task and a timer per login, every code woke two more threads, and the feed
/// was half of the generator's CPU.
final class CodeFeed: Sendable {
    private struct State {
        var codes: [String: String] = [:]
        var waiting: [String: CheckedContinuation<String?, Never>] = [:]
    }

    /// Shared by the follower task and the waiting logins.
    private final class Shared: Sendable {
        let state = Mutex(State())

        /// Gives `code` to the login waiting for it, or keeps it for the login to come.
        func hand(_ code: String, to recipient: String) {
            let waiter = state.withLock { state in
                guard let waiter = state.waiting.removeValue(forKey: recipient) else {
                    state.codes[recipient] = code
                    return nil as CheckedContinuation<String?, Never>?
                }
                return waiter
            }
            waiter?.resume(returning: code)
        }
    }

    private let shared = Shared()
    private let follower: Task<Void, Never>
    private let outbox: SQLStorage
    private let executor: LoopExecutor
    /// Wakes a sleeping follower when a login starts waiting.
    private let wake: AsyncStream<Void>.Continuation

    /// Starts following `outbox` from its newest message on.
    /// - Parameter interval: the pause between reads while logins wait. On PostgreSQL each
    ///   read is a round trip that wakes a backend on the cores the servers use; a read every
    ///   millisecond there was a fifth of the database's statements.
    init(outbox: SQLStorage, on executor: LoopExecutor, interval: TimeAmount = .milliseconds(1)) async throws {
        let start = try await outbox.outboxMessages(after: nil, limit: 1).cursor
        self.outbox = outbox
        self.executor = executor
        let shared = self.shared
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.wake = wake
        follower = Task(executorPreference: executor) {
            await Self.follow(outbox, from: start, into: shared, wakeups: wakeups, interval: interval, on: executor)
        }
    }

    /// Ends the follower; call before the executor's loop shuts down.
    func stop() async {
        follower.cancel()
        wake.finish()
        await follower.value
    }

    /// Reads the outbox every `interval` and hands out the codes. A number skipped (its
    /// transaction had not committed yet) is read again until it appears or a second passes.
    private static func follow(
        _ outbox: SQLStorage, from start: Int64, into shared: Shared, wakeups: AsyncStream<Void>, interval: TimeAmount,
        on executor: LoopExecutor
    ) async {
        var wakeup = wakeups.makeAsyncIterator()
        var cursor = start
        var skipped: [Int64: ContinuousClock.Instant] = [:]
        while !Task.isCancelled {
            let from = min(cursor, (skipped.keys.min() ?? cursor + 1) - 1)
            guard let page = try? await outbox.outboxMessages(after: from, limit: 500) else {
                await executor.sleep(interval)
                continue
            }
            let numbers = Set(page.messages.map(\.number))
            for (number, message) in page.messages where number > cursor || skipped[number] != nil {
                skipped[number] = nil
                if let code = message.code { shared.hand(code, to: message.recipient) }
            }
            if page.cursor > cursor {
                for number in (cursor + 1)..<page.cursor where !numbers.contains(number) { skipped[number] = .now }
                cursor = page.cursor
            }
            skipped = skipped.filter { ContinuousClock.now - $0.value < .seconds(1) }
            if page.messages.count < 500 {
                let idle = skipped.isEmpty && page.messages.isEmpty && shared.state.withLock { $0.waiting.isEmpty }
                if idle { _ = await wakeup.next() } else { await executor.sleep(interval) }
            }
        }
    }

    deinit {
        follower.cancel()
        wake.finish()
    }

    /// The code sent to `recipient`. The follower may step over a message: on PostgreSQL a
    /// transaction can commit a lower sequence number after a higher one was read; it reads
    /// such a number again for a second. A code not seen by then is looked up for its
    /// recipient every quarter second, the follower still handing it over meanwhile, until 3 s
    /// have passed. (Looked up after 100 ms, under load the lookups were a third of the
    /// database's statements: a message is queued, claimed and written well after the start
    /// is answered. Every 10 ms after the first second, the few logins whose message took that
    /// long still made five lookups per login and kept the generator at 0.4 cores.)
    func code(for recipient: String) async -> String? {
        if let code = await followed(recipient, timeout: .seconds(1)) { return code }
        for _ in 0..<8 {
            if let code = try? await outbox.recentOutboxMessages(limit: 1, recipient: recipient).first?.code { return code }
            if let code = await followed(recipient, timeout: .milliseconds(250)) { return code }
        }
        return nil
    }

    /// The code for `recipient` from the follower, waiting up to `timeout` for it.
    private func followed(_ recipient: String, timeout: TimeAmount) async -> String? {
        let timer = executor.loop.scheduleTask(in: timeout) { [shared] in
            shared.state.withLock { $0.waiting.removeValue(forKey: recipient) }?.resume(returning: nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let arrived = shared.state.withLock { state in
                guard let code = state.codes.removeValue(forKey: recipient) else {
                    state.waiting[recipient] = continuation
                    return nil as String?
                }
                return code
            }
            if let arrived { continuation.resume(returning: arrived) } else { wake.yield() }
        }
    }
}
