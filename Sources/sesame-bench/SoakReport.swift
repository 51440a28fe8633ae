import Foundation
import SesameServer

/// What `soak` prints, as text or one JSON object: the server's memory at the end of every
/// minute, and whether it stayed flat after the first (the warm-up).
struct SoakReport: Encodable {
    /// One minute: the server's memory at its end and the logins it served during it.
    struct Sample: Encodable {
        var minute, residentBytes, anonymousBytes, fileBytes, threads, logins, failures: Int

        init(minute: Int, memory: ProcessMemory, logins: Int, failures: Int) {
            self.minute = minute
            (residentBytes, anonymousBytes, fileBytes) = (memory.residentBytes, memory.anonymousBytes, memory.fileBytes)
            threads = memory.threads
            (self.logins, self.failures) = (logins, failures)
        }

        enum CodingKeys: String, CodingKey {
            case minute, residentBytes = "rss_bytes", anonymousBytes = "anon_bytes", fileBytes = "file_bytes", threads
            case logins, failures
        }
    }

    /// The flatness the soak is held to: after the warm-up, RSS moves by at most this share.
    static let flatWithin = 0.10

    var rate: Int
    var concurrency: Int
    var database: String
    var server = ServerProcess.usesSesameBinary ? "sesame serve" : "sesame-bench server (same server code)"
    var idleRSSBytes: Int?
    var idleRSSFreshBytes: Int?
    var samples: [Sample] = []

    /// Minutes the caches and pools are given to fill before RSS is held to ``flatWithin``:
    /// a PostgreSQL server opens its pool's connections as the load first needs them, and
    /// its sweeper's first full pass comes after five minutes.
    var warmUpMinutes = 1

    init(rate: Int, concurrency: Int, warmUpMinutes: Int = 1, start: Report) {
        (self.rate, self.concurrency, self.warmUpMinutes, database) = (rate, concurrency, warmUpMinutes, start.database)
        (idleRSSBytes, idleRSSFreshBytes) = (start.idleRSSBytes, start.idleRSSFreshBytes)
    }

    /// The minutes from the warm-up's last on.
    private var warm: ArraySlice<Sample> { samples.dropFirst(max(0, warmUpMinutes - 1)) }

    /// RSS at the end of the warm-up.
    var warmRSSBytes: Int { warm.first?.residentBytes ?? 0 }

    /// (highest − lowest) ÷ lowest RSS over every minute's end from the warm-up's on.
    var spreadAfterWarmUp: Double {
        let values = warm.map(\.residentBytes)
        guard let low = values.min(), let high = values.max(), low > 0 else { return 0 }
        return Double(high - low) / Double(low)
    }

    enum CodingKeys: String, CodingKey {
        case rate = "rate_per_second", concurrency, database, server, idleRSSBytes = "idle_rss_bytes"
        case idleRSSFreshBytes = "idle_rss_fresh_bytes", samples, warmRSSBytes = "warm_rss_bytes"
        case finalRSSBytes = "final_rss_bytes", spreadAfterWarmUp = "spread_after_warm_up", flat, minutes
        case logins, failures, warmUpMinutes = "warm_up_minutes"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rate, forKey: .rate)
        try container.encode(concurrency, forKey: .concurrency)
        try container.encode(database, forKey: .database)
        try container.encode(server, forKey: .server)
        try container.encodeIfPresent(idleRSSBytes, forKey: .idleRSSBytes)
        try container.encodeIfPresent(idleRSSFreshBytes, forKey: .idleRSSFreshBytes)
        try container.encode(samples, forKey: .samples)
        try container.encode(samples.count, forKey: .minutes)
        try container.encode(warmUpMinutes, forKey: .warmUpMinutes)
        try container.encode(warmRSSBytes, forKey: .warmRSSBytes)
        try container.encode(samples.last?.residentBytes ?? 0, forKey: .finalRSSBytes)
        try container.encode(spreadAfterWarmUp, forKey: .spreadAfterWarmUp)
        try container.encode(spreadAfterWarmUp <= Self.flatWithin, forKey: .flat)
        try container.encode(samples.map(\.logins).reduce(0, +), forKey: .logins)
        try container.encode(samples.map(\.failures).reduce(0, +), forKey: .failures)
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    var text: String {
        func mb(_ bytes: Int?) -> String { bytes.map { String(format: "%.1f MB", Double($0) / 1_048_576) } ?? "n/a" }
        var lines = [
            "soak: email-code logins at \(rate) /s (\(concurrency) workers), \(server) on \(database)",
            "idle RSS: fresh data directory \(mb(idleRSSFreshBytes)), restart \(mb(idleRSSBytes))",
            "minute  RSS        anon       file       threads  logins  failed",
        ]
        for sample in samples {
            lines.append(
                "\(sample.minute)".padding(toLength: 8, withPad: " ", startingAt: 0)
                    + [mb(sample.residentBytes), mb(sample.anonymousBytes), mb(sample.fileBytes)].map {
                        $0.padding(toLength: 11, withPad: " ", startingAt: 0)
                    }.joined() + "\(sample.threads)".padding(toLength: 9, withPad: " ", startingAt: 0)
                    + "\(sample.logins)".padding(toLength: 8, withPad: " ", startingAt: 0) + "\(sample.failures)")
        }
        let verdict = spreadAfterWarmUp <= Self.flatWithin ? "flat" : "not flat"
        lines.append(
            String(
                format: "after the warm-up (\(warmUpMinutes) min) RSS moved by %.1f %% (\(verdict): within %.0f %%)",
                spreadAfterWarmUp * 100,
                Self.flatWithin * 100))
        return lines.joined(separator: "\n")
    }
}
