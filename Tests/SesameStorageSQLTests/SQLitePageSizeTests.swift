import Foundation
import SQLiteNIO
import Testing

@testable import SesameStorageSQL

/// New SQLite files are created with 2 KB pages (half the log written per login,
/// docs/performance.md); a file made with another page size keeps it, with its data.
@Suite("SQLite: the page size of new and existing files")
struct SQLitePageSizeTests {
    @Test("a new file gets 2 KB pages; a 4 KB file from before keeps its pages and its rows")
    func pageSizes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let fresh = directory.appendingPathComponent("new.sqlite").path
        try await SQLStorage.sqlite(path: fresh).shutdown()
        #expect(try Self.pageSize(fresh) == 2048)

        // A data directory from before: SQLite's default page size, and a row in it.
        let existing = directory.appendingPathComponent("old.sqlite").path
        let old = try SQLiteHandle(path: existing)
        for statement in ["PRAGMA page_size=4096", "PRAGMA journal_mode=WAL", "CREATE TABLE kept (value TEXT)"] {
            try old.run(statement, []) { _ in }
        }
        try old.run("INSERT INTO kept (value) VALUES (?1)", [.text("still here")]) { _ in }
        old.close()
        let storage = try await SQLStorage.sqlite(path: existing)
        try await storage.updateSettings(set: ["opened": "yes"], remove: [], at: Date())
        try await storage.shutdown()
        #expect(try Self.pageSize(existing) == 4096)
        let check = try SQLiteHandle(path: existing)
        defer { check.close() }
        var values: [String] = []
        try check.run("SELECT value FROM kept", []) { row in
            if case .text(let value) = row.values[0] { values.append(value) }
        }
        #expect(values == ["still here"])
    }

    private static func pageSize(_ path: String) throws -> Int? {
        let handle = try SQLiteHandle(path: path)
        defer { handle.close() }
        var size: Int?
        try handle.run("PRAGMA page_size", []) { row in
            if case .integer(let value) = row.values[0] { size = Int(value) }
        }
        return size
    }
}
