import Testing

@testable import SesameServer

@Suite("The start's code let go")
struct ResidentCodeTests {
    /// One mapping of /proc/PID/smaps: its header line, then the fields the choice reads.
    static func mapping(_ header: String, anonymous: Int?) -> String {
        [header, "Size:                 20 kB", "Rss:                  20 kB"].joined(separator: "\n")
            + (anonymous.map { "\nAnonymous:            \($0) kB" } ?? "") + "\nVmFlags: rd mr mw me dw sd"
    }

    static let smaps = [
        mapping("55c5d9e49000-55c5d9e4b000 r--p 00000000 fe:00 253911                     /opt/sesame/sesame", anonymous: 0),
        mapping("55c5d9e4b000-55c5d9e50000 r-xp 00002000 fe:00 253911                     /opt/sesame/sesame", anonymous: 0),
        // The relocated data the loader made read-only after writing it: private copies.
        mapping("55c5d9e50000-55c5d9e53000 r--p 00007000 fe:00 253911                     /opt/sesame/sesame", anonymous: 12),
        mapping("55c5d9e54000-55c5d9e55000 rw-p 0000a000 fe:00 253911                     /opt/sesame/sesame", anonymous: 0),
        mapping("55c5d9e56000-55c5d9e57000 rwxp 0000b000 fe:00 253911                     /opt/sesame/sesame", anonymous: 0),
        // No Anonymous line: unknown, so kept.
        mapping("55c5d9e58000-55c5d9e59000 r--p 0000c000 fe:00 253911                     /opt/sesame/sesame", anonymous: nil),
        mapping("7f0a1c028000-7f0a1c1bd000 r-xp 00028000 fe:00 1052      /usr/lib/x86_64-linux-gnu/libc.so.6", anonymous: 0),
        mapping("7f0a1c300000-7f0a1c301000 r-xp 00000000 fe:00 9999      /opt/sesame/sesame (deleted)", anonymous: 0),
        mapping("7f0a1c400000-7f0a1c421000 rw-p 00000000 00:00 0", anonymous: 132),
        mapping("7ffc1f537000-7ffc1f558000 rw-p 00000000 00:00 0                          [stack]", anonymous: 8),
    ].joined(separator: "\n")

    /// Dropping a page that was written (data, relocations) would lose what was written: only
    /// the executable's never-written read-only pages may be let go.
    @Test("only the executable's never-written read-only mappings are chosen")
    func onlyNeverWritten() {
        let ranges = ResidentCode.releasableRanges(smaps: Self.smaps, executable: "/opt/sesame/sesame")
        #expect(ranges == [0x55c5_d9e4_9000..<0x55c5_d9e4_b000, 0x55c5_d9e4_b000..<0x55c5_d9e5_0000])
    }

    @Test("a text without the executable, or malformed lines, give nothing")
    func nothingElse() {
        #expect(ResidentCode.releasableRanges(smaps: Self.smaps, executable: "/usr/bin/other").isEmpty)
        let malformed = Self.mapping("zz-yy r-xp 0 0 0 /opt/sesame/sesame", anonymous: 0)
        #expect(ResidentCode.releasableRanges(smaps: malformed + "\n\n", executable: "/opt/sesame/sesame").isEmpty)
    }

    /// The pages come back from the file on their next use: the process goes on running, and
    /// reads its code's constants (the sample above) again.
    @Test("this process's code and constants can be let go and it runs on")
    func releasesOwnCode() {
        ResidentCode.releaseStartCode()
        #expect(ProcessMemory.read("self").residentBytes > 0)
        #expect(ResidentCode.releasableRanges(smaps: Self.smaps, executable: "/opt/sesame/sesame").count == 2)
    }
}
