import Foundation

/// Paths for database files the tests create and remove.
enum TemporaryDatabase {
    /// A new `sesame-….sqlite` path in the temporary directory; nothing is created.
    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sesame-\(UUID().uuidString).sqlite").path
    }
}
