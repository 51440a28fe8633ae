import Dispatch
import Foundation
import Synchronization

/// Copies the write-ahead log back into the database file from a thread of its own.
///
/// SQLite's automatic checkpoint runs inside the `COMMIT` that crosses its threshold, on the
/// single writer, and syncs the database file: every few thousand commits one writer batch,
/// and every request queued behind it, waited for a disk sync. Here a passive checkpoint
/// (which never blocks the writer or readers) runs on its own connection every `interval`, and
/// sooner whenever `threshold` frames have been written since the last one (the writer reports
/// each commit, ``logGrew(to:)``); the writer's automatic checkpoint is off.
///
/// A checkpoint made while the writer goes on never catches up with it, and SQLite starts the
/// log over only when a write begins with the whole log copied: under steady load the log grew
/// by 80 MB a second, without end, and every write to it went to newly allocated, zeroed
/// blocks (a tenth of the server's CPU). So the writer, between two batches, copies the frames
/// written since the last pass (``catchUp(with:)``), at most once per `interval`, and its next
/// transaction starts the log over. The writer waits for that copy, so it is kept small: with
/// passes only every `interval`, it held the frames of a whole pass (the pass itself copied
/// half a second of logins), and the logins queued behind it made the p99 of email-code logins
/// at half the peak rate 22–30 ms; with passes every `threshold` frames as well, 8–11 ms, and
/// the peak rate the same (docs/performance.md).
final class SQLiteCheckpointer: Sendable {
    private let handle: SQLiteHandle
    private let interval: TimeInterval
    private let threshold: Int
    private let running = Atomic<Bool>(true)
    /// Passes completed, and the pass the writer last caught up with.
    private let passes = Atomic<Int>(0)
    private let caughtUp = Atomic<Int>(0)
    /// When the writer last caught up (`DispatchTime`'s uptime nanoseconds).
    private let caughtUpAt = Atomic<UInt64>(0)
    /// The frames of the log the last pass had copied; 0 once the log starts over.
    private let copied = Atomic<Int>(0)
    /// Whether a pass was asked for since the last one began.
    private let requested = Atomic<Bool>(false)
    /// Signalled to end the wait between checkpoints at once, and when the thread is done.
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// Starts checkpointing the database at `path` every `interval` seconds, and whenever
    /// `threshold` frames (4 MB of 2 KB pages) have been written since the last pass.
    init(path: String, interval: TimeInterval = 0.5, threshold: Int = 2048) throws {
        handle = try SQLiteHandle(path: path)
        // A connection finds the log when it first reads the file; until then SQLite's
        // checkpoint call does nothing. This read of a header field needs no schema.
        try handle.run("PRAGMA user_version", []) { _ in }
        self.interval = interval
        self.threshold = threshold
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

    /// Called by the writer after each commit with the number of frames in the log: once
    /// `threshold` of them are not yet copied, the next pass starts now. Quick, since the
    /// commit waits for it.
    func logGrew(to frames: Int) {
        let copied = copied.load(ordering: .relaxed)
        // Fewer frames than were copied: the log started over.
        let pending = frames >= copied ? frames - copied : frames
        guard pending >= threshold, !requested.exchange(true, ordering: .relaxed) else { return }
        wake.signal()
    }

    /// Called by the writer between batches: after a completed pass, and at most once per
    /// `interval`, checkpoints the frames written since on the writer's own connection, so
    /// that no write can come in between.
    /// - Returns: whether it checkpointed.
    @discardableResult
    func catchUp(with writer: SQLiteHandle) -> Bool {
        let completed = passes.load(ordering: .acquiring)
        let now = DispatchTime.now().uptimeNanoseconds
        guard caughtUp.load(ordering: .relaxed) != completed,
            now - caughtUpAt.load(ordering: .relaxed) >= UInt64(interval * 1_000_000_000)
        else { return false }
        caughtUp.store(completed, ordering: .relaxed)
        caughtUpAt.store(now, ordering: .relaxed)
        // Busy (a reader on an old snapshot) is fine: the next pass tries again.
        _ = try? writer.checkpoint()
        copied.store(0, ordering: .relaxed)
        return true
    }

    /// The log's frames the last pass had copied (0 once the writer caught up).
    var lastCopied: Int { copied.load(ordering: .relaxed) }

    /// The passes completed so far.
    var completedPasses: Int { passes.load(ordering: .acquiring) }

    private func loop() {
        while running.load(ordering: .relaxed) {
            _ = wake.wait(timeout: .now() + interval)
            requested.store(false, ordering: .relaxed)
            // A busy or failed checkpoint is retried on the next round; the log only grows meanwhile.
            if let pass = try? handle.checkpoint() { copied.store(pass.copied, ordering: .relaxed) }
            passes.add(1, ordering: .releasing)
        }
        handle.close()
        done.signal()
    }
}
