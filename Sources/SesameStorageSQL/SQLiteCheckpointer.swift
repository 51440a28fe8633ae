import Dispatch
import Foundation
import Synchronization

/// Copies the write-ahead log back into the database file from a thread of its own.
///
/// SQLite's automatic checkpoint runs inside the `COMMIT` that crosses its threshold, on the
/// single writer, and syncs the database file: every few thousand commits one writer batch,
/// and every request queued behind it, waited for a disk sync. Here a passive checkpoint
/// (which never blocks the writer or readers) runs on its own connection every `interval`,
/// and the writer's automatic checkpoint is off.
///
/// A checkpoint made while the writer goes on never catches up with it, and SQLite starts the
/// log over only when a write begins with the whole log copied: under steady load the log grew
/// by 80 MB a second, without end, and every write to it went to newly allocated, zeroed
/// blocks (a tenth of the server's CPU). So after each pass the writer, between two batches,
/// copies the few frames written during the pass (``catchUp(with:)``), and its next
/// transaction starts the log over.
final class SQLiteCheckpointer: Sendable {
    private let handle: SQLiteHandle
    private let interval: TimeInterval
    private let running = Atomic<Bool>(true)
    /// Passes completed, and the pass the writer last caught up with.
    private let passes = Atomic<Int>(0)
    private let caughtUp = Atomic<Int>(0)
    /// Signalled to end the wait between checkpoints at once, and when the thread is done.
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// Starts checkpointing the database at `path` every `interval` seconds.
    init(path: String, interval: TimeInterval = 0.5) throws {
        handle = try SQLiteHandle(path: path)
        self.interval = interval
        let thread = Thread { [self] in loop() }
        thread.name = "sesame-sqlite-checkpoint"
        thread.start()
    }

    /// Stops the thread and waits until it has closed its connection, so the connection that
    /// closes last (which folds the log into the file and removes it) is the caller's.
    func stop() {
        running.store(false, ordering: .relaxed)
        wake.signal()
        done.wait()
    }

    /// Called by the writer between batches: once per completed pass, checkpoints the frames
    /// written since on the writer's own connection, so that no write can come in between.
    func catchUp(with writer: SQLiteHandle) {
        let completed = passes.load(ordering: .acquiring)
        guard caughtUp.load(ordering: .relaxed) != completed else { return }
        caughtUp.store(completed, ordering: .relaxed)
        // Busy (a reader on an old snapshot) is fine: the next pass tries again.
        try? writer.run("PRAGMA wal_checkpoint(PASSIVE)", []) { _ in }
    }

    private func loop() {
        while running.load(ordering: .relaxed) {
            _ = wake.wait(timeout: .now() + interval)
            // A busy or failed checkpoint is retried on the next round; the log only grows meanwhile.
            try? handle.run("PRAGMA wal_checkpoint(PASSIVE)", []) { _ in }
            passes.add(1, ordering: .releasing)
        }
        handle.close()
        done.signal()
    }
}
