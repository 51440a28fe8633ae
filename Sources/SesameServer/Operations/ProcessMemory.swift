import Foundation

/// A process's memory as Linux reports it in /proc: the figure an operator sees (`VmRSS`) and
/// where it goes, so the benchmark can say whether heap or mapped code grew.
public struct ProcessMemory: Equatable, Sendable {
    /// Resident memory now (`VmRSS`), in bytes.
    public var residentBytes = 0
    /// The most resident memory the process has had (`VmHWM`), in bytes.
    public var peakResidentBytes = 0
    /// Resident memory not backed by a file (heap, thread stacks, arenas), in bytes.
    public var anonymousBytes = 0
    /// Resident pages of mapped files (the executable, the libraries), in bytes.
    public var fileBytes = 0
    /// The process's threads.
    public var threads = 0

    /// Zeros: what a process /proc cannot tell about reports.
    public init() {}

    init(residentBytes: Int, peakResidentBytes: Int, anonymousBytes: Int, fileBytes: Int, threads: Int) {
        (self.residentBytes, self.peakResidentBytes) = (residentBytes, peakResidentBytes)
        (self.anonymousBytes, self.fileBytes, self.threads) = (anonymousBytes, fileBytes, threads)
    }

    /// The memory of process `pid` ("self" for this one); zeros where /proc cannot tell.
    public static func read(_ pid: String) -> ProcessMemory {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return parse(status: status)
    }

    /// Reads the fields of a /proc/PID/status text. `RssAnon` and `RssFile` split `VmRSS`
    /// (shared memory, `RssShmem`, is neither and is left out).
    public static func parse(status: String) -> ProcessMemory {
        let fields = fieldsInKilobytes(status)
        return ProcessMemory(
            residentBytes: (fields["VmRSS"] ?? 0) * 1024, peakResidentBytes: (fields["VmHWM"] ?? 0) * 1024,
            anonymousBytes: (fields["RssAnon"] ?? 0) * 1024, fileBytes: (fields["RssFile"] ?? 0) * 1024,
            threads: fields["Threads"] ?? 0)
    }

    /// `Name: value [kB]` lines as numbers by name; a line without a number is skipped.
    static func fieldsInKilobytes(_ text: String) -> [String: Int] {
        var fields: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let words = line[line.index(after: colon)...].split(whereSeparator: \.isWhitespace)
            if let first = words.first, let value = Int(first) { fields[String(line[..<colon])] = value }
        }
        return fields
    }
}
