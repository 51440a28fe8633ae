import SesameParsers
import Testing

@testable import SesameServer

@Suite("The access line's fields")
struct RequestLogFormatTests {
    @Test("durations are milliseconds with one decimal, halves rounded up")
    func milliseconds() {
        let cases: [(UInt64, String)] = [
            (0, "0.0"), (49_999, "0.0"), (50_000, "0.1"), (1_234_567, "1.2"), (1_250_000, "1.3"),
            (999_950_000, "1000.0"), (12_345_678_901, "12345.7"),
        ]
        for (nanoseconds, text) in cases {
            #expect(RequestLogMiddleware.milliseconds(nanoseconds) == text, "\(nanoseconds) ns")
        }
    }

    @Test("a caller's request id is kept only when short and plain")
    func usableID() {
        #expect(RequestID.usable("trace-42") == "trace-42")
        #expect(RequestID.usable("a b") == nil)
        #expect(RequestID.usable("line\nforged") == nil)
        #expect(RequestID.usable(String(repeating: "a", count: 129)) == nil)
        #expect(RequestID.usable(nil) == nil)
    }
}
