import Foundation
import Synchronization

/// Copies the write-ahead log back into the database file from a thread of its own.
///
/// SQLite's automatic checkpoint runs inside the `COMMIT` that crosses its threshold, on the
/// single writer, and syncs the database file: every few thousand commits one writer batch,
/// and every request queued behind it, waited for a disk sync. Here a passive checkpoint
/// (which never blocks the writer or readers) runs on its own connection every `interval`,
/// and the writer's automatic checkpoint is off.
final class SQLiteCheckpointer: Sendable {
    private let handle: SQLiteHandle
    private let interval: TimeInterval
    private let running = Atomic<Bool>(true)

    /// Starts checkpointing the database at `path` every `interval` seconds.
    init(path: String, interval: TimeInterval = 0.5) throws {
        handle = try SQLiteHandle(path: path)
        self.interval = interval
        let thread = Thread { [self] in loop() }
        thread.name = "sesame-sqlite-checkpoint"
        thread.start()
    }

    /// Stops the thread after its current checkpoint; it then closes its connection.
    func stop() {
        running.store(false, ordering: .relaxed)
    }

    private func loop() {
        while running.load(ordering: .relaxed) {
            Thread.sleep(forTimeInterval: interval)
            // A busy or failed checkpoint is retried on the next round; the log only grows meanwhile.
            try? handle.run("PRAGMA wal_checkpoint(PASSIVE)", []) { _ in }
        }
        handle.close()
    }
}
