import Foundation
import JWTKit
import SesameAPI
import Testing

@testable import SesameCore

/// The token answer, the profile and an id_token's claims and header are written without
/// `JSONEncoder` on every login; these hold the written bytes to what `JSONEncoder` writes.
@Suite("JSON written directly matches JSONEncoder")
struct DirectJSONTests {
    /// Every control character, the escaped ones, a slash, non-ASCII and a character past the BMP.
    static let awkward: [String] = [
        "", "plain", "a/b\\c\"d", "Zoë 😀 \u{7f} \u{2028}", String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }),
    ]

    /// The server's response encoder.
    static let sorted: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func decoded(_ bytes: some Collection<UInt8>) throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: Data(bytes))
    }

    @Test("a token answer is byte for byte the sorted JSONEncoder's, with and without optional fields")
    func tokenBody() throws {
        for text in Self.awkward {
            for body in [
                TokenBody(
                    accessToken: text, tokenType: "Bearer", expiresIn: 86_400, idToken: text, refreshToken: text, scope: text),
                TokenBody(accessToken: "a", tokenType: text, expiresIn: -1, idToken: nil, refreshToken: nil, scope: nil),
            ] {
                let direct = try #require(body.directJSON())
                #expect(direct == Array(try Self.sorted.encode(body)), "\(String(decoding: direct, as: UTF8.self))")
            }
        }
    }

    @Test("a profile is byte for byte the sorted JSONEncoder's")
    func profile() throws {
        for text in Self.awkward {
            for info in [
                UserInfo(sub: text),
                UserInfo(
                    sub: "email|1", name: text, nickname: text, picture: text, updatedAt: text, email: text,
                    emailVerified: false, phoneNumber: text, phoneNumberVerified: true),
            ] {
                #expect(try #require(info.directJSON()) == Array(try Self.sorted.encode(info)))
            }
        }
    }

    @Test("id_token claims hold the same members as JSONEncoder writes; configured claims go to JSONEncoder")
    func claims() throws {
        for text in Self.awkward {
            var claims = IDTokenClaims(
                iss: "https://id.example.com/", aud: text, iat: 1_800_000_000, exp: 1_800_036_000, authTime: nil, nonce: text,
                profile: UserInfo(sub: "sms|1", name: text, phoneNumber: "+15555550100", phoneNumberVerified: true), sid: text)
            let direct = try #require(claims.directJSON())
            #expect(try Self.decoded(direct) == Self.decoded(try JSONEncoder().encode(claims)))
            #expect(try Self.decoded(DirectJWTEncoder().encode(claims)) == Self.decoded(try JSONEncoder().encode(claims)))
            claims.extra = ["https://example.com/roles": .array([.string("admin")])]
            #expect(claims.directJSON() == nil)
            #expect(try Self.decoded(DirectJWTEncoder().encode(claims)) == Self.decoded(try JSONEncoder().encode(claims)))
        }
    }

    @Test("a header of strings is written in sorted order; one with another kind of field goes to JSONEncoder")
    func header() throws {
        let header: JWTHeader = ["typ": .string("at+jwt"), "alg": .string("RS256"), "kid": .string("k/1\"")]
        let direct = try #require(DirectJWTEncoder.json(of: header))
        #expect(direct == Array(try Self.sorted.encode(header)))
        let mixed: JWTHeader = ["alg": .string("RS256"), "b64": .bool(false)]
        #expect(DirectJWTEncoder.json(of: mixed) == nil)
        #expect(try Self.decoded(DirectJWTEncoder().encode(mixed)) == ["alg": .string("RS256"), "b64": .bool(false)])
    }

    @Test("a queued message's content decodes to itself, every optional member present or not")
    func messageContent() throws {
        for text in Self.awkward {
            for content in [
                MessageContent(
                    channel: .email, recipient: text, kind: .code, code: text, link: nil, clientID: text, applicationName: text,
                    connection: "email", lifetimeMinutes: 5),
                MessageContent(
                    channel: .sms, recipient: "+15555550100", kind: .link, code: nil, link: "https://id.example.com/l?t=\(text)",
                    clientID: "c", applicationName: "App", applicationLogoURL: text, applicationBrandColor: "#112233",
                    connection: "sms", lifetimeMinutes: 1, requestLanguage: text, acceptLanguage: text),
            ] {
                let direct = try #require(content.directJSON())
                #expect(try JSONDecoder().decode(MessageContent.self, from: Data(direct)) == content)
                #expect(try Self.decoded(direct) == Self.decoded(try JSONEncoder().encode(content)))
            }
        }
    }
}
