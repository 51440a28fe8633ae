import Foundation
import SQLiteNIO
import Testing

@testable import SesameStorageSQL

/// The log's copy back into the file: passes as the log grows, and the writer's short catch-up.
@Suite("SQLite: the checkpointer's passes and the writer's catch-up")
struct SQLiteCheckpointerTests {
    /// Runs `body` with a writer and a checkpointer whose timer never fires within the test
    /// (one minute), so every pass seen was started by the log's growth.
    private static func withWriter(
        threshold: Int, _ body: (SQLiteHandle, SQLiteCheckpointer) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-ckpt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("log.sqlite").path
        let writer = try SQLiteHandle(path: path)
        defer { writer.close() }
        for pragma in ["PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0", "CREATE TABLE t (value TEXT)"] {
            try writer.run(pragma, []) { _ in }
        }
        let checkpointer = try SQLiteCheckpointer(path: path, interval: 60, threshold: threshold)
        defer { checkpointer.stop() }
        writer.observeCommits(checkpointer.logGrew(to:))
        try await body(writer, checkpointer)
    }

    private static func write(_ count: Int, to writer: SQLiteHandle) throws {
        for _ in 0..<count {
            try writer.run("INSERT INTO t (value) VALUES (?1)", [.text(String(repeating: "x", count: 3000))]) { _ in }
        }
    }

    private static func passes(_ checkpointer: SQLiteCheckpointer, atLeast count: Int) async throws -> Bool {
        for _ in 0..<200 where checkpointer.completedPasses < count { try await Task.sleep(for: .milliseconds(10)) }
        return checkpointer.completedPasses >= count
    }

    /// The writer's catch-up copies what the last pass left: with passes only on a timer, a
    /// pass held half a second of writes and the catch-up that followed stalled every login
    /// queued behind the writer (the p99 at half the peak rate was 22–30 ms).
    @Test("a pass starts as soon as the threshold's frames are written, not at the interval")
    func passStartsAtThreshold() async throws {
        try await Self.withWriter(threshold: 20) { writer, checkpointer in
            try Self.write(5, to: writer)
            try await Task.sleep(for: .milliseconds(200))
            #expect(checkpointer.completedPasses == 0, "below the threshold the timer decides")
            try Self.write(20, to: writer)
            #expect(try await Self.passes(checkpointer, atLeast: 1))
        }
    }

    /// Each catch-up stalls the writer for a disk sync: after every pass, they came as often as
    /// passes do, and the peak rate fell 5–10 %.
    @Test("the writer catches up after a pass, at most once per interval")
    func catchUpAtMostOncePerInterval() async throws {
        try await Self.withWriter(threshold: 20) { writer, checkpointer in
            #expect(!checkpointer.catchUp(with: writer), "no pass yet")
            try Self.write(25, to: writer)
            #expect(try await Self.passes(checkpointer, atLeast: 1))
            #expect(checkpointer.catchUp(with: writer))
            try Self.write(25, to: writer)
            #expect(try await Self.passes(checkpointer, atLeast: 2))
            #expect(!checkpointer.catchUp(with: writer), "within the interval of the last one")
        }
    }

    /// The checkpointer's connection runs nothing but checkpoints, through SQLite's call, which
    /// does nothing on a connection that has not read the file yet: the writer's catch-up then
    /// copied every frame itself, and the p99 at half the peak rose to 40 ms.
    @Test("the checkpointer's own connection copies every frame of a quiet log")
    func checkpointerCopiesTheLog() async throws {
        try await Self.withWriter(threshold: 10) { writer, checkpointer in
            try Self.write(20, to: writer)
            #expect(try await Self.passes(checkpointer, atLeast: 1))
            #expect(checkpointer.lastCopied > 0, "the pass copied frames itself")
        }
    }
}
