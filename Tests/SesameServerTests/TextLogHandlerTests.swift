import Logging
import Synchronization
import Testing

@testable import SesameServer

@Suite("The text log format")
struct TextLogHandlerTests {
    /// Collects what swift-log's StreamLogHandler writes.
    final class Captured: TextOutputStream, @unchecked Sendable {
        let lines = Mutex<[String]>([])
        func write(_ string: String) { lines.withLock { $0.append(string) } }
    }

    struct Refused: Error, CustomStringConvertible {
        var description: String { "no such user" }
    }

    /// Operators' log pipelines parse these lines; the faster handler must not change them.
    @Test("lines are StreamLogHandler's, byte for byte after the time stamp")
    func sameLinesAsStreamLogHandler() {
        let events = [
            LogEvent(
                level: .info, message: "request", metadata: ["status": "200", "route": "/oauth/token"], source: "SesameServer",
                file: #fileID, function: #function, line: #line),
            LogEvent(
                level: .warning, message: "refused", error: Refused(), metadata: ["request_id": "over"],
                source: "SesameCore", file: #fileID, function: #function, line: #line),
            LogEvent(
                level: .notice, message: "plain", metadata: nil, source: "SesameServer", file: #fileID, function: #function,
                line: #line),
        ]
        for label in ["sesame", ""] {
            let captured = Captured()
            var stream = StreamLogHandler(label: label, stream: captured, metadataProvider: nil)
            var text = TextLogHandler(label: label, metadataProvider: nil)
            stream[metadataKey: "request_id"] = "trace-1"
            stream[metadataKey: "hb.request.id"] = "abc"
            text[metadataKey: "request_id"] = "trace-1"
            text[metadataKey: "hb.request.id"] = "abc"
            for event in events { stream.log(event: event) }
            let expected = captured.lines.withLock { $0 }.map { $0.drop { $0 != " " } }
            let actual = events.map { text.line($0, at: "T").drop { $0 != " " } }
            #expect(actual == expected)
        }
    }
}
