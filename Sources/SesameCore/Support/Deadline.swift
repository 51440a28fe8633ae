import Synchronization

/// Runs `body` with a deadline: after `timeout` it is cancelled and the caller gets
/// `timeoutError()` at once.
///
/// Unlike a task group, this does not wait for `body` to honour the cancellation: a driver
/// stuck on a dead connection may ignore it, and waiting would turn the deadline into a hang.
/// Cancelling the caller cancels `body` too.
public func withDeadline<T: Sendable>(
    _ timeout: Duration, timeoutError: @escaping @Sendable () -> any Error,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = FirstResult<T>()
    let work = Task {
        do { race.finish(with: .success(try await body())) } catch { race.finish(with: .failure(error)) }
    }
    let ticket = DeadlineWatch.shared.add(at: .now + timeout) {
        race.finish(with: .failure(timeoutError()))
        work.cancel()
    }
    defer { DeadlineWatch.shared.remove(ticket) }
    return try await withTaskCancellationHandler {
        try await race.value()
    } onCancel: {
        work.cancel()
    }
}

/// One clock for every pending deadline: a timer per storage operation costs more than the
/// operation's own bookkeeping, so a single task wakes every `tick` while deadlines are
/// pending and fires those that passed (up to one tick late, nothing for deadlines of seconds).
private final class DeadlineWatch: Sendable {
    static let shared = DeadlineWatch(tick: .milliseconds(50))

    private struct Entry {
        let deadline: ContinuousClock.Instant
        let fire: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var lastID: UInt64 = 0
        var ticking = false
    }

    private let state = Mutex(State())
    private let tick: Duration

    private init(tick: Duration) { self.tick = tick }

    func add(at deadline: ContinuousClock.Instant, fire: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, startTicking) = state.withLock { state -> (UInt64, Bool) in
            state.lastID += 1
            state.entries[state.lastID] = Entry(deadline: deadline, fire: fire)
            defer { state.ticking = true }
            return (state.lastID, !state.ticking)
        }
        if startTicking { Task.detached { await self.watch() } }
        return id
    }

    func remove(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// Runs while deadlines are pending; the next `add` starts it again.
    private func watch() async {
        while true {
            try? await Task.sleep(for: tick)
            let now = ContinuousClock.now
            let (due, pending) = state.withLock { state -> ([Entry], Bool) in
                let due = state.entries.filter { $0.value.deadline <= now }
                for id in due.keys { state.entries.removeValue(forKey: id) }
                state.ticking = !state.entries.isEmpty
                return (Array(due.values), state.ticking)
            }
            for entry in due { entry.fire() }
            if !pending { return }
        }
    }
}

/// The first of several racers to finish decides the result; later ones are ignored.
private final class FirstResult<T: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<T, any Error>?)
        case done(Result<T, any Error>)
    }

    private let state = Mutex(State.waiting(nil))

    func finish(with result: Result<T, any Error>) {
        let waiter: CheckedContinuation<T, any Error>? = state.withLock { state in
            guard case .waiting(let waiter) = state else { return nil }
            state = .done(result)
            return waiter
        }
        waiter?.resume(with: result)
    }

    /// The result, once a racer has finished; called once, by the one caller.
    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let result: Result<T, any Error>? = state.withLock { state in
                guard case .done(let result) = state else {
                    state = .waiting(continuation)
                    return nil
                }
                return result
            }
            if let result { continuation.resume(with: result) }
        }
    }
}
