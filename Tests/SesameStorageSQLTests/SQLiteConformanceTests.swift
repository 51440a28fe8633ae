import Foundation
import SesameStorageConformance
import SesameStorageSQL
import Testing

@Suite("SQLite storage conformance")
struct SQLiteConformanceTests {
    @Test("in-memory database", arguments: StorageConformance.checks)
    func inMemory(_ check: ConformanceCheck) async throws {
        let store = try await SQLStorage.sqlite(path: nil)
        defer { Task { try? await store.shutdown() } }
        try await check.run(store, TestClock())
    }

    /// A file database uses the separate reader connections, so reads must see every
    /// committed write.
    @Test("file database with readers", arguments: StorageConformance.checks)
    func file(_ check: ConformanceCheck) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLStorage.sqlite(path: directory.appendingPathComponent("test.sqlite").path)
        try await check.run(store, TestClock())
        try await store.shutdown()
    }

    @Test("migrations are idempotent across restarts")
    func reopen() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try await SQLStorage.sqlite(path: path)
        try await first.addHMACSecret([1], at: Date())
        try await first.shutdown()
        let second = try await SQLStorage.sqlite(path: path)
        #expect(try await second.hmacSecrets() == [[1]])
        try await second.shutdown()
    }
}
