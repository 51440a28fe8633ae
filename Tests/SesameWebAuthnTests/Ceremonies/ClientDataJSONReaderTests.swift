import Foundation
import SesameWebAuthnTesting
import Testing

@testable import SesameWebAuthn

/// The strict clientDataJSON reader replaced Foundation's JSONDecoder on the hot path; these tests
/// pin that it accepts and extracts exactly what a conforming JSON parser does.
@Suite("clientDataJSON reader")
struct ClientDataJSONReaderTests {
    static let base = #"{"type":"webauthn.get","challenge":"AAEC","origin":"https://example.org","crossOrigin":false}"#

    private func parse(_ text: String) -> CollectedClientData? {
        try? CollectedClientData(bytes: Array(text.utf8))
    }

    @Test("members are extracted; escapes, BOM, whitespace and unknown members are handled")
    func extraction() throws {
        let text =
            "\u{FEFF} { \"type\" : \"webauthn.get\",\n\t\"challenge\":\"AAEC\", \"origin\":\"https:\\/\\/ex\\u0061mple.org\","
            + #" "extra":{"a":[1,-2.5e3,true,null,{"b":"\ud83d\ude00"}]}, "topOrigin":"https://top.example","#
            + #" "crossOrigin":true, "tokenBinding":{"status":"present","id":"x"} } "#
        let clientData = try #require(parse(text))
        #expect(clientData.type == "webauthn.get" && clientData.challenge == "AAEC")
        #expect(clientData.origin == "https://example.org")
        #expect(clientData.topOrigin == "https://top.example" && clientData.crossOrigin == true)
        #expect(clientData.tokenBindingStatus == "present")
    }

    @Test(
        "null optional members and odd legacy tokenBinding shapes are tolerated",
        arguments: [
            #"{"type":"t","challenge":"c","origin":"o","crossOrigin":null,"topOrigin":null,"tokenBinding":"present"}"#,
            #"{"type":"t","challenge":"c","origin":"o","tokenBinding":{"status":5}}"#,
            #"{"type":"t","challenge":"c","origin":"o","tokenBinding":{"status":null}}"#,
            #"{"type":"t","challenge":"c","origin":"o","status":"not-supported"}"#,
        ])
    func tolerated(_ text: String) throws {
        let clientData = try #require(parse(text))
        #expect(clientData.crossOrigin == nil && clientData.topOrigin == nil && clientData.tokenBindingStatus == nil)
    }

    @Test(
        "anything that is not such a JSON object is malformed",
        arguments: [
            "", "[]", "\"x\"", #"{"type":"t","challenge":"c"}"#, #"{"type":null,"challenge":"c","origin":"o"}"#,
            #"{"type":1,"challenge":"c","origin":"o"}"#, #"{"type":"t","challenge":"c","origin":"o","crossOrigin":"true"}"#,
            #"{"type":"t","challenge":"c","origin":"o","topOrigin":1}"#, #"{"type":"t","challenge":"c","origin":"o"} x"#,
            #"{"type":"t","challenge":"c","origin":"o",}"#, #"{"type":"t","challenge":"c","origin":"o""#,
            #"{"type":"t","challenge":"c","origin":"o","n":01}"#, #"{"type":"t","challenge":"c","origin":"o","n":1.}"#,
            #"{"type":"t","challenge":"c","origin":"o","s":"\x"}"#, #"{"type":"t","challenge":"c","origin":"o","s":"\ud800"}"#,
            #"{"type":"t","challenge":"c","origin":"o","s":"\udc00"}"#,
            "{\"type\":\"t\",\"challenge\":\"c\",\"origin\":\"o\u{01}\"}",
            #"{"type":"t","challenge":"c","origin":"o","a":[1,]}"#, #"{"type":"t","challenge":"c","origin":"o","a":tru}"#,
            #"{'type':"t","challenge":"c","origin":"o"}"#,
        ])
    func malformed(_ text: String) {
        #expect(throws: WebAuthnError.malformedClientData) { try CollectedClientData(bytes: Array(text.utf8)) }
    }

    @Test("a checked member given twice is refused, so no parser can read another challenge")
    func duplicates() {
        for member in [#""challenge":"AAAA""#, #""origin":"https://evil.example""#, #""type":"webauthn.get""#] {
            let text = Self.base.dropLast() + "," + member + "}"
            #expect(parse(String(text)) == nil, "\(member)")
        }
    }

    @Test("invalid UTF-8 and over-deep nesting are malformed")
    func bytes() {
        let invalid = Array(#"{"type":"t","challenge":"c","origin":"o"#.utf8) + [0xFF] + Array(#""}"#.utf8)
        #expect(throws: WebAuthnError.malformedClientData) { try CollectedClientData(bytes: invalid) }
        let deep =
            #"{"type":"t","challenge":"c","origin":"o","d":"# + String(repeating: "[", count: 600)
            + String(repeating: "]", count: 600) + "}"
        #expect(throws: WebAuthnError.malformedClientData) { try CollectedClientData(bytes: Array(deep.utf8)) }
    }

    /// Differential check against Foundation's JSONDecoder on thousands of mutations of a valid
    /// document: whatever the reader accepts, JSONDecoder accepts with the same values; the reader
    /// refuses more only for texts that are not valid JSON or that repeat a checked member.
    @Test("agrees with Foundation's JSONDecoder on mutated documents")
    func differential() {
        var random = SeededGenerator(seed: 0x5E5A_3E)
        let seeds = [
            Self.base,
            #"{"type":"webauthn.create","challenge":"x","origin":"o","tokenBinding":{"status":"supported"},"n":[1.5e-3,"\u00e9"]}"#,
        ]
        let alphabet = Array(#"{}[]:,"\ -.0123456789eEtrufalsn/bu"#.utf8) + [0xC3, 0xA9, 0x80]
        var agreed = 0
        for iteration in 0..<6000 {
            var bytes = Array(seeds[iteration % seeds.count].utf8)
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let index = Int(random.next() % UInt64(bytes.count))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: bytes[index] = byte
                case 1: bytes.insert(byte, at: index)
                default: if bytes.count > 1 { bytes.remove(at: index) }
                }
            }
            let reference = FoundationReference(bytes)
            let reader = try? CollectedClientData(bytes: bytes)
            // JSONDecoder scans members it does not decode only loosely (it accepts `1.5eE3` or a
            // bad escape there); the reader refuses every text that is not JSON, and duplicates.
            if reader == nil, reference != nil,
                FoundationReference.hasDuplicateCheckedMember(bytes) || !FoundationReference.isJSON(bytes)
            {
                continue
            }
            #expect(reader.map(FoundationReference.init) == reference, "\(String(decoding: bytes, as: UTF8.self))")
            agreed += 1
        }
        #expect(agreed > 3000)
    }
}

/// What the previous JSONDecoder-based parser extracted (the reference for the differential test).
private struct FoundationReference: Decodable, Equatable {
    var type: String
    var challenge: String
    var origin: String
    var crossOrigin: Bool?
    var topOrigin: String?
    var tokenBindingStatus: String?

    private enum CodingKeys: String, CodingKey { case type, challenge, origin, crossOrigin, topOrigin, tokenBinding }
    private struct TokenBinding: Decodable { let status: String? }

    init?(_ bytes: [UInt8]) {
        guard let value = try? JSONDecoder().decode(Self.self, from: Data(bytes)) else { return nil }
        self = value
    }

    init(_ clientData: CollectedClientData) {
        (type, challenge, origin) = (clientData.type, clientData.challenge, clientData.origin)
        (crossOrigin, topOrigin, tokenBindingStatus) = (
            clientData.crossOrigin, clientData.topOrigin, clientData.tokenBindingStatus
        )
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        challenge = try container.decode(String.self, forKey: .challenge)
        origin = try container.decode(String.self, forKey: .origin)
        crossOrigin = try container.decodeIfPresent(Bool.self, forKey: .crossOrigin)
        topOrigin = try container.decodeIfPresent(String.self, forKey: .topOrigin)
        tokenBindingStatus = (try? container.decodeIfPresent(TokenBinding.self, forKey: .tokenBinding))?.status
    }

    /// Whether the bytes are one valid JSON text (JSONSerialization materialises every value).
    static func isJSON(_ bytes: [UInt8]) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
    }

    /// Whether a checked member name occurs twice (JSONSerialization keeps one silently).
    static func hasDuplicateCheckedMember(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        return ["type", "challenge", "origin", "crossOrigin", "topOrigin", "tokenBinding", "status"].contains {
            text.components(separatedBy: "\"\($0)\"").count > 2
        }
    }
}
