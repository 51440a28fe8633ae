import Foundation

/// What `import` prints, as text or one JSON object: how long the upload and the job took,
/// users a second, and the server's memory before, during (the highest in each quarter of
/// the users processed) and after.
struct ImportReport: Encodable {
    /// Memory is flat while the job runs when the last quarter's peak is within this share of
    /// the first's: a server holding what it imported would grow with every batch.
    static let flatWithin = 0.10

    var users, fileBytes: Int
    var database: String
    var server = ServerProcess.usesSesameBinary ? "sesame serve" : "sesame-bench server (same server code)"
    var status = ""
    var inserted = 0, failed = 0
    var uploadSeconds = 0.0, importSeconds = 0.0
    var idleRSSBytes = 0, uploadPeakRSSBytes = 0, peakRSSBytes = 0, finalRSSBytes = 0
    var importRSSByQuarter: [Int] = []

    init(users: Int, fileBytes: Int, database: String) {
        (self.users, self.fileBytes, self.database) = (users, fileBytes, database)
    }

    /// Users imported a second by the job, from the upload's answer to its end.
    private(set) var usersPerSecond = 0.0
    /// (last quarter's peak − first quarter's) ÷ first quarter's.
    private(set) var growthWhileImporting = 0.0
    private(set) var flat = true

    /// Works out the figures read from the others, once the job has ended.
    mutating func finish() {
        usersPerSecond = importSeconds > 0 ? Double(inserted) / importSeconds : 0
        if let first = importRSSByQuarter.first(where: { $0 > 0 }), let last = importRSSByQuarter.last, last > 0 {
            growthWhileImporting = Double(last - first) / Double(first)
        }
        flat = growthWhileImporting <= Self.flatWithin
    }

    enum CodingKeys: String, CodingKey {
        case users, fileBytes = "file_bytes", database, server, status, inserted, failed
        case uploadSeconds = "upload_seconds", importSeconds = "import_seconds", usersPerSecond = "users_per_second"
        case idleRSSBytes = "idle_rss_bytes", uploadPeakRSSBytes = "upload_peak_rss_bytes"
        case importRSSByQuarter = "import_peak_rss_bytes_by_quarter", peakRSSBytes = "peak_rss_bytes"
        case finalRSSBytes = "final_rss_bytes", growthWhileImporting = "growth_while_importing", flat
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    var text: String {
        func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
        return [
            "import: \(users) users (\(mb(fileBytes)) file), \(server) on \(database): \(status)",
            "inserted \(inserted), failed \(failed)",
            String(format: "upload %.1f s, job %.1f s: %.0f users/s", uploadSeconds, importSeconds, usersPerSecond),
            "RSS: idle \(mb(idleRSSBytes)), upload peak \(mb(uploadPeakRSSBytes)), peak \(mb(peakRSSBytes)), after \(mb(finalRSSBytes))",
            "RSS peak by quarter of the users: " + importRSSByQuarter.map(mb).joined(separator: ", "),
            String(
                format: "while importing RSS moved by %.1f %% (%@: within %.0f %%)", growthWhileImporting * 100,
                flat ? "flat" : "not flat", Self.flatWithin * 100),
        ].joined(separator: "\n")
    }
}
