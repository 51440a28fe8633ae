import Foundation
import SesameAPI
import Testing

@testable import SesameCore

/// The incremental splitter under the users import: it must find exactly the elements a JSON
/// parser would, whatever the pieces the input arrives in, and place every fault.
@Suite("JSON array splitter")
struct JSONArraySplitterTests {
    /// The elements of `text` and where each starts, fed `piece` bytes at a time.
    static func split(_ text: String, piece: Int = .max, maxElementSize: Int = .max) throws -> [(String, Int, Int)] {
        var splitter = JSONArraySplitter(maxElementSize: maxElementSize)
        var found: [(String, Int, Int)] = []
        let bytes = Array(text.utf8)
        var offset = 0
        repeat {
            let end = offset + min(piece, bytes.count - offset)
            try splitter.feed(bytes[offset..<end]) { found.append((String(decoding: $0, as: UTF8.self), $1.line, $1.column)) }
            offset = end
        } while offset < bytes.count
        try splitter.finish()
        return found
    }

    static func elements(_ text: String, piece: Int = .max) throws -> [String] { try split(text, piece: piece).map(\.0) }

    /// The fault `text` is refused with.
    static func failure(_ text: String, maxElementSize: Int = .max) -> JSONArraySplitter.Failure? {
        do {
            _ = try split(text, maxElementSize: maxElementSize)
            return nil
        } catch {
            return error as? JSONArraySplitter.Failure
        }
    }

    @Test("nested objects and arrays, strings and scalars are split at the top level only, in any pieces")
    func nesting() throws {
        let text = #"[{"a":[1,{"b":[]}],"c":{}},[1,[2,[3]]],"x",-3.5e2,true,null,{}]"#
        let expected = [#"{"a":[1,{"b":[]}],"c":{}}"#, "[1,[2,[3]]]", #""x""#, "-3.5e2", "true", "null", "{}"]
        for piece in [1, 2, 3, 7, 64, .max] {
            #expect(try Self.elements(text, piece: piece) == expected, "pieces of \(piece)")
        }
    }

    @Test("brackets, commas and escaped quotes inside strings do not end an element")
    func stringsWithBracketsAndEscapes() throws {
        let text = #"[{"a":"]}[{,","b":"\"]","c":"\\"},"\\\"]",{"d":"\u005d"}]"#
        let expected = [#"{"a":"]}[{,","b":"\"]","c":"\\"}"#, #""\\\"]""#, #"{"d":"\u005d"}"#]
        for piece in [1, 5, .max] {
            #expect(try Self.elements(text, piece: piece) == expected)
        }
    }

    @Test("white space around and between elements, an empty array and a byte order mark are accepted")
    func whitespaceAndByteOrderMark() throws {
        #expect(try Self.elements(" \r\n\t[ 1 ,\n\t2\r\n] \n") == ["1", "2"])
        #expect(try Self.elements("[]").isEmpty)
        #expect(try Self.elements(" [ \n ] ").isEmpty)
        #expect(try Self.elements("\u{FEFF}[{\"a\":1}]", piece: 1) == [#"{"a":1}"#])
        #expect(Self.failure(" \u{FEFF}[1]")?.reason == "the file must be a JSON array", "a mark only at the start")
        #expect(Self.failure("\u{FEFF}\u{FEFF}[1]") != nil)
    }

    @Test("a truncated file is refused, wherever it stops")
    func truncated() {
        let cases: [(String, String)] = [
            ("", "the file must be a JSON array"), ("  \n", "the file must be a JSON array"),
            ("[", "the file ends before the array is closed"), ("[1,", "the file ends before the array is closed"),
            (#"[{"a":1}"#, "the file ends before the array is closed"), (#"[{"a":[1"#, "the file ends inside a value"),
            (#"[{"a":"b"#, "a string is not closed"), (#"["a\"#, "a string is not closed"),
            ("[tru", "the file ends inside a value"),
        ]
        for (text, reason) in cases {
            #expect(Self.failure(text)?.reason == reason, "\(text)")
        }
    }

    @Test("a broken frame is refused with the line and column of the fault")
    func faultsArePlaced() {
        #expect(Self.failure("[1,]") == .init(position: .init(line: 1, column: 4), reason: "expected a value after ,"))
        #expect(Self.failure("[\n ,1]") == .init(position: .init(line: 2, column: 2), reason: "expected a value"))
        #expect(Self.failure("[1 2]") == .init(position: .init(line: 1, column: 4), reason: "expected , or ] after a value"))
        #expect(Self.failure("[1]\n x") == .init(position: .init(line: 2, column: 2), reason: "nothing may follow the array"))
        #expect(Self.failure(#"{"a":1}"#)?.reason == "the file must be a JSON array")
        #expect(Self.failure("[}]")?.reason == "expected a value")
    }

    @Test("each element is placed where it starts")
    func elementPositions() throws {
        let found = try Self.split("[\n  {\"a\": 1},\n  \"x\", 7\n]", piece: 3)
        #expect(found.map { "\($0.1):\($0.2)" } == ["2:3", "3:3", "3:8"])
    }

    /// Attack: one element as large as the whole upload (a single user of 100 MB, or an
    /// unclosed string), so that the element held in memory is the file after all.
    @Test("an element over the limit is refused where it starts")
    func oversizedElement() throws {
        let failure = Self.failure(#"[1, "abcdefghij"]"#, maxElementSize: 8)
        #expect(failure == .init(position: .init(line: 1, column: 5), reason: "a value is over 8 bytes"))
        #expect(try Self.split(#"[1, "abcdef"]"#, maxElementSize: 8).count == 2)
    }

    /// A small deterministic generator, so a failing case is the same on every run.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A differential check of the splitter against Foundation's whole-file parser: random
    /// edits of a file with nested brackets, escapes and scalars, fed in random pieces.
    @Test("mutated files: the splitter and a whole-file JSON parser agree on which are arrays and how long")
    func agreesWithAParser() throws {
        var random = SplitMix(state: 47)
        let seed = Array(#"[{"email":"a@x.io","m":{"t":["]","\"",[1,{}]]}}, "s\\", 12, [true,null], {"e":""}]"#.utf8)
        let alphabet = Array(#"[]{}",:\ a1"#.utf8)
        for _ in 0..<3000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                if Bool.random(using: &random) {
                    bytes.remove(at: index)
                } else {
                    bytes.insert(alphabet.randomElement(using: &random)!, at: index)
                }
            }
            let parsed = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [Any]
            let split = try? Self.split(String(decoding: bytes, as: UTF8.self), piece: Int.random(in: 1...9, using: &random))
            let decoded = split.flatMap { elements in
                try? elements.map { try JSONDecoder().decode(JSONValue.self, from: Data($0.0.utf8)) }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            // RFC 8259 has no trailing comma (`[1,]`), which Foundation's parser lets by.
            if parsed != nil, decoded == nil, Self.failure(text)?.reason == "expected a value after ," { continue }
            #expect(parsed?.count == decoded?.count, "\(text)")
        }
    }
}
