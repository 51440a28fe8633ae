import Foundation
import SesameCore
import Testing

@testable import SesameStorageSQL

@Suite("SQLite backups: a consistent copy of a live database")
struct SQLiteBackupTests {
    @Test("a backup taken while another connection writes opens on its own with every row it saw")
    func backupWhileWriting() async throws {
        let (source, copy) = (TemporaryDatabase.path(), TemporaryDatabase.path())
        defer { for path in [source, copy] { try? FileManager.default.removeItem(atPath: path) } }
        let store = try await SQLStorage.sqlite(path: source)
        try await store.updateSettings(set: ["issuer": "https://before.example/"], remove: [], at: Date())
        let writer = Task {
            for index in 0..<200 {
                try await store.updateSettings(set: ["k\(index)": "\(index)"], remove: [], at: Date())
            }
        }
        try SQLiteBackup.copy(from: source, to: copy)
        try await writer.value
        try await store.shutdown()
        let restored = try await SQLStorage.sqlite(path: copy, migrate: false)
        #expect(try await restored.schemaStatus().isCurrent)
        let settings = try await restored.storedSettings()
        #expect(settings["issuer"] == "https://before.example/")
        // One snapshot: the writes it holds are a prefix of the writer's, never a torn one.
        let written = (0..<200).filter { settings["k\($0)"] != nil }
        #expect(written == Array(0..<written.count))
        try await restored.shutdown()
    }

    @Test("a file that is not there is an error naming it")
    func missingSource() {
        let missing = TemporaryDatabase.path()
        #expect(throws: (any Error).self) { try SQLiteBackup.copy(from: missing, to: TemporaryDatabase.path()) }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
