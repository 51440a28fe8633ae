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
    let timer = Task {
        try await Task.sleep(for: timeout)
        race.finish(with: .failure(timeoutError()))
        work.cancel()
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await race.value()
    } onCancel: {
        work.cancel()
    }
}

/// The first of several racers to finish decides the result; later ones are ignored.
private final class FirstResult<T: Sendable>: Sendable {
    private enum State {
        case waiting([CheckedContinuation<T, any Error>])
        case done(Result<T, any Error>)
    }

    private let state = Mutex(State.waiting([]))

    func finish(with result: Result<T, any Error>) {
        let waiters: [CheckedContinuation<T, any Error>] = state.withLock { state in
            guard case .waiting(let waiters) = state else { return [] }
            state = .done(result)
            return waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let result: Result<T, any Error>? = state.withLock { state in
                switch state {
                case .waiting(let waiters):
                    state = .waiting(waiters + [continuation])
                    return nil
                case .done(let result):
                    return result
                }
            }
            if let result { continuation.resume(with: result) }
        }
    }
}
