import Foundation
import Testing

@testable import SesameServer

/// The writer of export files: whatever the pieces, the file is one gzip stream of them all.
@Suite("Gzip writer")
struct GzipWriterTests {
    static func gzip(_ pieces: [Data]) throws -> Data {
        var writer = try GzipWriter()
        for piece in pieces { try writer.write(piece) }
        return try writer.finish()
    }

    @Test("pieces of any size make one gzip stream that decompresses to them in order")
    func roundTrip() throws {
        let line = Data(#"{"email":"ana@example.com","user_id":"email|5f7c8ec7c33c6c004bbafe82"}"#.utf8 + [0x0A])
        let cases: [[Data]] = [
            [], [Data()], [line], [line, Data(), line],
            (0..<5000).map { _ in line },  // 360 KB: several of the writer's output steps
            [Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) })],  // barely compressible
        ]
        for pieces in cases {
            let file = try Self.gzip(pieces)
            #expect(file.starts(with: [0x1F, 0x8B, 0x08]), "gzip magic and deflate")
            #expect(try GzipWriter.decompress(file) == pieces.reduce(Data(), +))
        }
    }

    @Test("a file of users' lines is written far smaller than it is")
    func compresses() throws {
        let lines = (0..<10_000).map { Data(#"{"email":"user\#($0)@example.com","email_verified":true}"#.utf8 + [0x0A]) }
        let file = try Self.gzip(lines)
        #expect(file.count * 4 < lines.reduce(0) { $0 + $1.count })
    }

    @Test("bytes that are not gzip are refused, not decompressed")
    func refusesOtherBytes() {
        #expect(throws: (any Error).self) { try GzipWriter.decompress(Data("not gzip".utf8)) }
    }
}
