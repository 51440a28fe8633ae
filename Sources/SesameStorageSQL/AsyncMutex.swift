/// A FIFO mutual-exclusion lock held across `await`s.
///
/// SQLite has one writer; a write transaction spans several awaits, and actor methods are
/// re-entrant at each await, so an actor alone does not keep two transactions apart.
actor AsyncMutex {
    private var locked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` while holding the lock.
    func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        guard locked else {
            locked = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        // Ownership passes straight to the next waiter, so `locked` stays true and no
        // newcomer can overtake the queue.
        if waiters.isEmpty { locked = false } else { waiters.removeFirst().resume() }
    }
}
