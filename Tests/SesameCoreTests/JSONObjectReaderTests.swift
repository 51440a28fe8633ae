import Foundation
import SesameAPI
import SesameWebAuthn
import SesameWebAuthnTesting
import Testing

@testable import SesameCore

/// Request bodies and queued messages are read without `JSONDecoder` when they are flat
/// objects. The attack this guards against is a parser differential: a text one reader
/// accepts and the other refuses, or reads differently (a member, a repeated key, an escape),
/// lets a request mean one thing to a check and another to its use. So whatever
/// ``JSONObjectReader`` reads must be exactly what `JSONDecoder` reads, and what it declines
/// goes to `JSONDecoder`.
@Suite("A flat JSON object read without JSONDecoder reads as JSONDecoder reads it")
struct JSONObjectReaderTests {
    /// What `JSONDecoder` makes of `text` as a request body, or nil when it refuses it.
    static func decoded(_ text: [UInt8]) -> [String: JSONValue]? {
        try? JSONDecoder().decode([String: JSONValue].self, from: Data(text))
    }

    /// The reader's members as `JSONValue`s (numbers through `Double`, as `JSONValue` holds
    /// them); nil when a number does not fit a `Double`, which `JSONDecoder` then refuses.
    static func converted(_ members: [String: JSONObjectReader.Value]) -> [String: JSONValue]? {
        var object: [String: JSONValue] = [:]
        for (key, value) in members {
            switch value {
            case .string(let text): object[key] = .string(text)
            case .bool(let flag): object[key] = .bool(flag)
            case .null: object[key] = .null
            case .number(let text):
                guard let number = Double(text), number.isFinite else { return nil }
                object[key] = .number(number)
            }
        }
        return object
    }

    static let seeds: [String] = [
        #"{"grant_type":"http://auth0.com/oauth/grant-type/passwordless/otp","client_id":"abc","otp":"123456"}"#,
        #" { "a" : "x\"y\\z\/w\b\f\n\r\t" , "b" : true , "c" : false , "d" : null } "#,
        #"{"n":-12.5e3,"m":0,"k":1E+2,"e":"é 😀","u":"\u00e9\ud83d\ude00\u0000"}"#,
        #"{}"#,
        #"{"nested":{"a":1},"list":[1,"2"]}"#,
    ]

    @Test("the seeds read as JSONDecoder reads them, or are left to it")
    func seeds() throws {
        let first = try #require(JSONObjectReader.members(Array(Self.seeds[0].utf8)))
        #expect(first["otp"] == .string("123456"))
        let escapes = try #require(JSONObjectReader.members(Array(Self.seeds[1].utf8)))
        #expect(escapes["a"] == .string("x\"y\\z/w\u{8}\u{c}\n\r\t") && escapes["d"] == .null)
        let unicode = try #require(JSONObjectReader.members(Array(Self.seeds[2].utf8)))
        #expect(unicode["u"] == .string("é😀\u{0}") && unicode["n"] == .number("-12.5e3"))
        #expect(JSONObjectReader.members(Array(Self.seeds[4].utf8)) == nil, "nested values are left to JSONDecoder")
        for seed in Self.seeds { try Self.agree(Array(seed.utf8)) }
    }

    @Test(
        "texts it must leave to JSONDecoder",
        arguments: [
            #"{"a":"1","a":"2"}"#, #"{"a":1,}"#, #"{"a":01}"#, #"{"a":"\ud800"}"#, #"{"a":"\x"}"#, "\u{FEFF}{}",
            #"{"a":tru}"#, #"["a"]"#, #""a""#, #"{"a":"1"} x"#, "{\"a\":\"\u{1}\"}", #"{"a":-}"#, #"{"a":1.}"#,
        ])
    func declined(text: String) throws {
        #expect(JSONObjectReader.members(Array(text.utf8)) == nil)
        try Self.agree(Array(text.utf8))
    }

    @Test("invalid UTF-8 is left to JSONDecoder")
    func invalidUTF8() throws {
        let text: [UInt8] = Array(#"{"a":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(JSONObjectReader.members(text) == nil)
    }

    /// Ten thousand mutations of the seeds, each byte replaced, inserted or removed from an
    /// alphabet of JSON's own characters: whenever the reader reads a text, `JSONDecoder`
    /// reads it too, to the same members.
    @Test("mutated texts: never accepted where JSONDecoder refuses, never read differently")
    func mutations() throws {
        let alphabet = Array(#"{}[]",:\/ -+.eE0123456789abfnrtu"#.utf8) + [0x00, 0x09, 0x0A, 0x7F, 0xC3, 0xA9, 0xFF]
        var random = SeededGenerator(seed: 0x5E5A_4E)
        var read = 0
        for round in 0..<10_000 {
            var text = Array(Self.seeds[round % Self.seeds.count].utf8)
            for _ in 0...(round % 3) {
                let index = Int(random.next() % UInt64(text.count + 1))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0 where index < text.count: text[index] = byte
                case 1 where index < text.count: text.remove(at: index)
                default: text.insert(byte, at: index)
                }
            }
            if JSONObjectReader.members(text) != nil { read += 1 }
            try Self.agree(text)
        }
        #expect(read > 500, "the mutations must also make texts the reader reads (\(read))")
    }

    /// When the reader reads `text`, `JSONDecoder` reads the same members. A number's text is
    /// the reader's to convert: one too large for a `Double` is refused by `JSONDecoder` as a
    /// `JSONValue`, and by the request parser, which leaves every number to `JSONDecoder`.
    static func agree(_ text: [UInt8]) throws {
        guard let members = JSONObjectReader.members(text) else { return }
        guard let expected = converted(members) else {
            #expect(decoded(text) == nil, "\(String(decoding: text, as: UTF8.self))")
            return
        }
        let actual = try #require(Self.decoded(text), "JSONDecoder refuses \(String(decoding: text, as: UTF8.self))")
        #expect(actual == expected, "\(String(decoding: text, as: UTF8.self))")
    }

    @Test("a queued message reads back to itself, and one written by JSONEncoder too")
    func messageContent() throws {
        for text in DirectJSONTests.awkward {
            let content = MessageContent(
                channel: .sms, recipient: text, kind: .link, code: nil, link: text, clientID: "c", applicationName: text,
                applicationLogoURL: text, applicationBrandColor: nil, connection: "sms", lifetimeMinutes: 15,
                requestLanguage: nil, acceptLanguage: text)
            let direct = try #require(content.directJSON())
            #expect(try MessageContent.decode(from: Data(direct)) == content)
            #expect(try MessageContent.decode(from: try JSONEncoder().encode(content)) == content)
        }
    }

    @Test("a queued message of another shape gets JSONDecoder's error")
    func messageContentErrors() throws {
        let wrongType = Data(#"{"channel":"sms","recipient":5}"#.utf8)
        #expect(throws: DecodingError.self) { try MessageContent.decode(from: wrongType) }
        let unknownChannel = Data(
            #"{"channel":"fax","recipient":"r","kind":"code","clientID":"c","applicationName":"A","connection":"sms","lifetimeMinutes":5}"#
                .utf8)
        #expect(throws: DecodingError.self) { try MessageContent.decode(from: unknownChannel) }
    }
}
