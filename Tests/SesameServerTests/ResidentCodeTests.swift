import Testing

@testable import SesameServer

@Suite("The start's code let go")
struct ResidentCodeTests {
    static let maps = """
        55c5d9e49000-55c5d9e4b000 r--p 00000000 fe:00 253911                     /opt/sesame/sesame
        55c5d9e4b000-55c5d9e50000 r-xp 00002000 fe:00 253911                     /opt/sesame/sesame
        55c5d9e50000-55c5d9e53000 r--p 00007000 fe:00 253911                     /opt/sesame/sesame
        55c5d9e54000-55c5d9e55000 rw-p 0000a000 fe:00 253911                     /opt/sesame/sesame
        55c5d9e56000-55c5d9e57000 rwxp 0000b000 fe:00 253911                     /opt/sesame/sesame
        7f0a1c028000-7f0a1c1bd000 r-xp 00028000 fe:00 1052                       /usr/lib/x86_64-linux-gnu/libc.so.6
        7f0a1c300000-7f0a1c301000 r-xp 00000000 fe:00 9999                       /opt/sesame/sesame (deleted)
        7f0a1c400000-7f0a1c421000 rw-p 00000000 00:00 0
        7ffc1f537000-7ffc1f558000 rw-p 00000000 00:00 0                          [stack]
        """

    /// Dropping a page that was written (data, relocations) would lose what was written: only
    /// the executable's read-only code may be let go.
    @Test("only the executable's read-only code mappings are chosen")
    func onlyCode() {
        let ranges = ResidentCode.codeRanges(maps: Self.maps, executable: "/opt/sesame/sesame")
        #expect(ranges == [0x55c5_d9e4_b000..<0x55c5_d9e5_0000])
    }

    @Test("a text without the executable, or malformed lines, give nothing")
    func nothingElse() {
        #expect(ResidentCode.codeRanges(maps: Self.maps, executable: "/usr/bin/other").isEmpty)
        #expect(
            ResidentCode.codeRanges(maps: "zz-yy r-xp 0 0 0 /opt/sesame/sesame\n\n", executable: "/opt/sesame/sesame").isEmpty)
    }

    /// The pages come back from the file on their next use: the process goes on running.
    @Test("this process's code can be let go and runs on")
    func releasesOwnCode() {
        ResidentCode.releaseStartCode()
        #expect(ProcessMemory.read("self").residentBytes > 0)
        #expect(ResidentCode.codeRanges(maps: Self.maps, executable: "/opt/sesame/sesame").count == 1)
    }
}
