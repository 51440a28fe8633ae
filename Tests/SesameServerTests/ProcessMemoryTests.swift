import Testing

@testable import SesameServer

@Suite("A process's memory read from /proc")
struct ProcessMemoryTests {
    /// A /proc/PID/status text as Linux 6 writes it: tabs after the colon, sizes in kB.
    static let status = """
        Name:\tsesame
        Umask:\t0022
        State:\tS (sleeping)
        VmPeak:\t  412060 kB
        VmHWM:\t   31708 kB
        VmRSS:\t   27236 kB
        RssAnon:\t    7112 kB
        RssFile:\t   20124 kB
        RssShmem:\t       0 kB
        Threads:\t9
        Groups:\t
        SigQ:\t1/96364
        """

    @Test("resident, peak, anonymous and file memory are read in bytes, and the threads counted")
    func readsStatus() {
        let memory = ProcessMemory.parse(status: Self.status)
        #expect(memory.residentBytes == 27236 * 1024)
        #expect(memory.peakResidentBytes == 31708 * 1024)
        #expect(memory.anonymousBytes == 7112 * 1024)
        #expect(memory.fileBytes == 20124 * 1024)
        #expect(memory.threads == 9)
    }

    /// A process that has exited leaves no file: the benchmark reports zeros rather than stop.
    @Test("an empty or unreadable status gives zeros")
    func emptyStatus() {
        #expect(ProcessMemory.parse(status: "") == ProcessMemory())
        #expect(ProcessMemory.read("0") == ProcessMemory())
    }

    @Test("lines without a number (an empty list, a fraction) are skipped, not misread")
    func skipsOtherLines() {
        let fields = ProcessMemory.fieldsInKilobytes(Self.status)
        #expect(fields["Groups"] == nil)
        #expect(fields["SigQ"] == nil)
        #expect(fields["Name"] == nil)
        #expect(fields["VmPeak"] == 412060)
    }

    @Test("this process's own status is read")
    func readsSelf() {
        let memory = ProcessMemory.read("self")
        #expect(memory.residentBytes > 0)
        #expect(memory.threads >= 1)
        #expect(memory.anonymousBytes + memory.fileBytes <= memory.residentBytes)
    }
}
