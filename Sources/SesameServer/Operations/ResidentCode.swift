import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The executable's machine code the start ran, let go once the server serves.
///
/// A start runs code a serving server never runs again: the configuration's parsing, the
/// migrations, a fresh data directory's key generation, the templates' parsing. Its pages stay
/// mapped, and counted in the process's resident memory, until the kernel needs the memory
/// back (docs/performance.md, "Memory"). Dropping the mappings of the code once, after the
/// start, leaves resident only what serving touches again: a page it needs is mapped again
/// from the page cache on its next use, a minor fault.
public enum ResidentCode {
    /// Drops this process's mappings of its executable's code pages (`madvise(MADV_DONTNEED)`
    /// on the executable's `r-xp` mappings). Only code: it is never written, so nothing is lost;
    /// the data mappings hold relocations and written values and are left alone.
    public static func releaseStartCode() {
        #if os(Linux)
            guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8),
                let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            else { return }
            for range in codeRanges(maps: maps, executable: executable) {
                _ = madvise(UnsafeMutableRawPointer(bitPattern: range.lowerBound), range.count, MADV_DONTNEED)
            }
        #endif
    }

    /// The address ranges of `executable`'s code in a /proc/PID/maps text: its mappings that
    /// are readable, executable, private and not writable. A path that differs (a library, a
    /// replaced binary shown as "(deleted)") is not the executable's.
    static func codeRanges(maps: String, executable: String) -> [Range<UInt>] {
        maps.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1] == "r-xp",
                fields[5].trimmingCharacters(in: .whitespaces) == executable
            else { return nil }
            let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            guard bounds.count == 2, bounds[0] < bounds[1] else { return nil }
            return bounds[0]..<bounds[1]
        }
    }
}
