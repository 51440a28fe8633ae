import Foundation
import SesameCore
import Testing

@testable import SesameServer

/// The streaming `multipart/form-data` reader under the users import: the same parts whatever
/// pieces the body arrives in, and a bounded refusal for bodies that never follow their boundary.
@Suite("Multipart reader")
struct MultipartReaderTests {
    static let type = "multipart/form-data; boundary=XyZ"

    /// The parts of `body` as (name, file name, bytes), fed `piece` bytes at a time.
    static func parts(_ body: String, piece: Int) throws -> [(String, String?, String)] {
        var reader = try MultipartReader(contentType: type)
        var parts: [(String, String?, [UInt8])] = []
        let bytes = Array(body.utf8)
        var offset = 0
        while offset < bytes.count {
            let end = offset + min(piece, bytes.count - offset)
            try reader.feed(bytes[offset..<end]) { event in
                switch event {
                case .part(let name, let filename): parts.append((name, filename, []))
                case .bytes(let slice): parts[parts.count - 1].2 += slice
                }
            }
            offset = end
        }
        try reader.finish()
        return parts.map { ($0.0, $0.1, String(decoding: $0.2, as: UTF8.self)) }
    }

    static let body =
        "\r\n--XyZ\r\nContent-Disposition: form-data; name=\"connection_id\"\r\n\r\ncon_1\r\n"
        + "--XyZ\r\nContent-Disposition: form-data; name=\"users\"; filename=\"u.json\"\r\n"
        + "Content-Type: application/json\r\n\r\n[{\"email\": \"a@example.com\"},\r\n--Xy \"x--XyZ\"]\r\n--XyZ--\r\nepilogue"

    @Test("parts, file names and bytes are the same in any pieces, a near-boundary inside a file kept whole")
    func anyPieces() throws {
        let expected = ["connection_id||con_1", "users|u.json|[{\"email\": \"a@example.com\"},\r\n--Xy \"x--XyZ\"]"]
        for piece in [1, 2, 5, 13, 64, 4096] {
            let parts = try Self.parts(Self.body, piece: piece).map { "\($0.0)|\($0.1 ?? "")|\($0.2)" }
            #expect(parts == expected, "pieces of \(piece)")
        }
    }

    /// Attack: bodies that never follow their boundary (no closing delimiter, header lines or a
    /// preamble without end, garbage after a delimiter), sent to hold the reader's buffer or
    /// reach a 5xx. Each is a 400, and the buffer never holds more than a header's limit.
    @Test("a body that does not follow its boundary is refused")
    func malformed() {
        let endless = String(repeating: "a", count: MultipartReader.maxHeaderSize + 10)
        let bodies = [
            "--XyZ\r\nContent-Disposition: form-data; name=\"users\"\r\n\r\n[]",  // never closed
            "--XyZ\r\nContent-Disposition: form-data; name=\"users\"\r\n" + endless,  // headers without end
            endless,  // a preamble without a delimiter
            "preamble\r\n--XyZ--",  // text before the first delimiter
            "--XyZxx",  // neither a line break nor -- after a delimiter
            "--XyZ\r\nContent-Type: text/plain\r\n\r\nx\r\n--XyZ--",  // a part without a name
        ]
        for body in bodies {
            #expect(throws: SesameError.self, "\(body.prefix(60))") { _ = try Self.parts(body, piece: 7) }
        }
        for type in [nil, "application/json", "multipart/form-data", "multipart/form-data; boundary="] {
            #expect(throws: SesameError.self) { _ = try MultipartReader(contentType: type) }
        }
    }
}
