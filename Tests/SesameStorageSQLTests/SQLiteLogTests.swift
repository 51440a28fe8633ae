import Foundation
import SesameStorageSQL
import Synchronization
import Testing

/// A load test: it needs the cores to itself (beside the other suites it starves them and
/// they it), so `scripts/test` runs it alone after the suite, with `SESAME_LOAD_TESTS=1`.
@Suite(
    "SQLite: the write-ahead log under steady load",
    .enabled(if: ProcessInfo.processInfo.environment["SESAME_LOAD_TESTS"] == "1", "a load test: scripts/test runs it alone"))
struct SQLiteLogTests {
    /// Denial of service by load alone: a checkpoint running beside a busy writer never caught
    /// up with it, so SQLite never started the log over, and the log grew without end (80 MB
    /// a second under a benchmark) until the disk was full. The writer now finishes each
    /// checkpoint between two batches, and the log is reused from its start.
    @Test("writes with readers beside them reuse the log instead of growing it")
    func logIsReused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("log.sqlite").path
        let store = try await SQLStorage.sqlite(path: path)
        let value = String(repeating: "x", count: 3000)

        // Three writers and a reader, yielding between operations, until 3,000 writes have
        // committed over at least three seconds: six checkpoint intervals or more.
        let started = Date()
        let writes = WriteCount()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var count = 0
                    while writes.value.load(ordering: .relaxed) < 3000 || Date().timeIntervalSince(started) < 3 {
                        if worker < 3 {
                            try await store.updateSettings(
                                set: ["load.\(worker).\(count % 50)": value + "\(count)"], remove: [], at: Date())
                            writes.value.add(1, ordering: .relaxed)
                            count += 1
                        } else {
                            try await store.ping()
                        }
                        await Task.yield()
                    }
                }
            }
            try await group.waitForAll()
        }
        let size = Self.logSize(path)
        try await store.shutdown()
        // Each write adds at least 4 KB to the log (the 3,000-byte value fills a 2 KB page and
        // an overflow page, or one 4 KB page in an older file). Never started over, the log holds
        // them all; reused, it holds about what one checkpoint interval wrote.
        let written = writes.value.load(ordering: .relaxed) * 4096
        #expect(size < written / 2, "a log of \(size) bytes after \(written) bytes of pages written")
    }

    private static func logSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
    }
}

/// Writes committed so far, shared by the writer tasks.
private final class WriteCount: Sendable {
    let value = Atomic<Int>(0)
}
