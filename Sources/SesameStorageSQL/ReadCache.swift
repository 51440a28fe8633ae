import Synchronization

/// Records read on every login but changed rarely (applications, connections), kept for a
/// moment: each login reads them twice, and every read is a round trip to the database.
///
/// This process's own writes drop the entry at once; a change made elsewhere (another
/// instance, the `sesame admin` command) is seen within `lifetime`. Absence is not cached,
/// so a record created elsewhere is found at once.
final class ReadCache<Value: Sendable>: Sendable {
    private struct Entry {
        let value: Value
        let expires: ContinuousClock.Instant
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Bumped by every invalidation, so a read that began before a write cannot store
        /// what it read after the write dropped the entry.
        var generation = 0
    }

    private let state = Mutex(State())
    private let lifetime: Duration

    init(lifetime: Duration) {
        self.lifetime = lifetime
    }

    /// The cached value for `key`, or what `load` reads (cached when found).
    func value(for key: String, load: () async throws -> Value?) async throws -> Value? {
        let now = ContinuousClock.now
        let (cached, generation) = state.withLock { ($0.entries[key], $0.generation) }
        if let cached, cached.expires > now { return cached.value }
        guard let value = try await load() else { return nil }
        state.withLock { state in
            if state.generation == generation { state.entries[key] = Entry(value: value, expires: now + lifetime) }
        }
        return value
    }

    /// Forgets `key` after this process changed it.
    func invalidate(_ key: String) {
        state.withLock { state in
            state.entries.removeValue(forKey: key)
            state.generation += 1
        }
    }
}
