public import Foundation
import SQLKit
public import SesameCore
import Synchronization

extension SQLStorage: SweepRepository {
    public func sweep(now: Date, windowsBefore: Date, outboxBefore: Date, deliveriesBefore: Date) async throws
        -> SweepCounts
    {
        // A refresh token is kept a day past its expiry: its family's revocation must outlive
        // every access token minted from it.
        let deadlines: [(table: String, column: String, before: Date)] = [
            ("challenges", "expires_at", now), ("passkey_sessions", "expires_at", now),
            ("authorization_codes", "expires_at", now), ("device_assertions", "expires_at", now),
            ("device_nonces", "expires_at", now), ("refresh_tokens", "expires_at", now.addingTimeInterval(-86400)),
            ("rate_limits", "window_start", windowsBefore), ("outbox", "created_at", outboxBefore),
            ("browser_sessions", "expires_at", now), ("link_requests", "expires_at", now),
            ("deliveries", "created_at", deliveriesBefore), ("session_applications", "expires_at", now),
            ("dpop_proofs", "expires_at", now),
        ]
        var counts = SweepCounts()
        for deadline in deadlines {
            // One short statement per table, each on an index of its deadline column, so a
            // sweep never holds the single SQLite writer for long.
            // The removed rows are counted as they stream back, never collected: a sweep after
            // five minutes of load removes tens of thousands, and an array of them raised
            // the allocator's high-water mark by megabytes for the process's life
            // (docs/performance.md, eighteenth pass).
            let removed = RowCounter()
            try await executor.write { db in
                try await db.raw(
                    """
                    DELETE FROM \(ident: deadline.table) WHERE \(ident: deadline.column) < \(bind: deadline.before.sqlValue)
                    RETURNING 1 AS removed
                    """
                ).run { _ in removed.add() }
            }
            counts.removed[deadline.table] = removed.count
        }
        return counts
    }
}

/// Rows counted by a statement's row handler, which may run on another thread.
private final class RowCounter: Sendable {
    private let value = Mutex(0)

    func add() { value.withLock { $0 += 1 } }

    var count: Int { value.withLock { $0 } }
}
