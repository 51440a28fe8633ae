import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The executable's machine code the start ran, let go once the server serves.
///
/// A start runs code a serving server never runs again: the configuration's parsing, the
/// migrations, a fresh data directory's key generation, the templates' parsing. Its pages stay
/// mapped, and counted in the process's resident memory, until the kernel needs the memory
/// back (docs/performance.md, "Memory"). The same holds for the constants, type metadata and
/// unwind tables the start read. Dropping those mappings once, after the start, leaves
/// resident only what serving touches again: a page it needs is mapped again from the page
/// cache on its next use, a minor fault.
public enum ResidentCode {
    /// Drops this process's mappings of its executable's never-written pages
    /// (`madvise(MADV_DONTNEED)`): its code (`r-xp`) and those of its read-only data mappings
    /// (`r--p`: constants, type metadata, unwind tables) that hold no page of their own. A
    /// read-only mapping that was written before it was made read-only (the relocated data the
    /// loader protects) holds private copies, counted as `Anonymous` in smaps; dropping them
    /// would lose the relocations, so such a mapping is left alone, as is every writable one.
    public static func releaseStartCode() {
        #if os(Linux)
            guard let smaps = try? String(contentsOfFile: "/proc/self/smaps", encoding: .utf8),
                let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            else { return }
            for range in releasableRanges(smaps: smaps, executable: executable) {
                _ = madvise(UnsafeMutableRawPointer(bitPattern: range.lowerBound), range.count, MADV_DONTNEED)
            }
        #endif
    }

    /// The address ranges of `executable`'s pages that a /proc/PID/smaps text shows never
    /// written: its private mappings that are readable and not writable, code or not, with no
    /// `Anonymous` page. A path that differs (a library, a replaced binary shown as
    /// "(deleted)") is not the executable's; a mapping whose `Anonymous` line is missing or
    /// unreadable is kept, as if written.
    static func releasableRanges(smaps: String, executable: String) -> [Range<UInt>] {
        var ranges: [Range<UInt>] = []
        var candidate: Range<UInt>?
        for line in smaps.split(separator: "\n") {
            if let mapping = header(line) {
                let readOnly = mapping.permissions == "r-xp" || mapping.permissions == "r--p"
                candidate = readOnly && mapping.path == executable ? mapping.range : nil
                continue
            }
            guard let range = candidate, line.hasPrefix("Anonymous:") else { continue }
            candidate = nil
            let kilobytes = line.dropFirst("Anonymous:".count).split(separator: " ").first.flatMap { Int($0) }
            if kilobytes == 0 { ranges.append(range) }
        }
        return ranges
    }

    /// A smaps header line (the format of /proc/PID/maps): the mapping's range, permissions
    /// and path; nil for a field line (`Rss:   12 kB`) or a malformed one.
    private static func header(_ line: Substring) -> (range: Range<UInt>, permissions: Substring, path: String)? {
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        guard fields.count >= 5, !fields[0].hasSuffix(":") else { return nil }
        let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
        guard bounds.count == 2, bounds[0] < bounds[1] else { return nil }
        let path = fields.count == 6 ? fields[5].trimmingCharacters(in: .whitespaces) : ""
        return (bounds[0]..<bounds[1], fields[1], path)
    }
}
