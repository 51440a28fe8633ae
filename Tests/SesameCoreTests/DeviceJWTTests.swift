import Foundation
import SesameAPI
import Testing

@testable import SesameCore

@Suite("Device JWTs: splitting and decoding before any trust")
struct DeviceJWTTests {
    static let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"k1"}"#.utf8))
    static let claims = Base64URL.encode(Array(#"{"sub":"u","aud":"a","iat":1,"exp":2,"jti":"j"}"#.utf8))
    static let signature = Base64URL.encode([1, 2, 3])

    @Test("a three-part JWS splits into its header, claims, signed bytes and signature")
    func threeParts() throws {
        let jwt = try DeviceJWT.parse("\(Self.header).\(Self.claims).\(Self.signature)")
        #expect(jwt.header.alg == "ES256" && jwt.header.kid == "k1")
        #expect(jwt.claims.sub == "u" && jwt.claims.aud == ["a"] && jwt.claims.jti == "j")
        #expect(jwt.signingInput == Array("\(Self.header).\(Self.claims)".utf8))
        #expect(jwt.signature == [1, 2, 3])
    }

    /// The attack: a token crafted so that the bytes the signature is checked over differ from
    /// the header and claims that are then trusted (extra parts, or marks that join a dot into
    /// one character and shift where a split by Character would cut).
    @Test(
        "anything but exactly three well-formed parts is malformed",
        arguments: [
            "", ".", "..", "a.b", "\(header).\(claims)", "\(header).\(claims).\(signature).x",
            "\(header)..\(signature)", ".\(claims).\(signature)", "\(header).\(claims).\(signature)\u{301}",
            "\(header).\u{301}\(claims).\(signature)", "\(header).\(claims).+/", "é.\(claims).\(signature)",
            String(repeating: "a", count: 8193),
        ])
    func malformed(token: String) {
        #expect {
            try DeviceJWT.parse(token)
        } throws: { error in
            (error as? DeviceKeyRefusal)?.reason == .malformed
        }
    }

    /// The fast reader must read exactly what `JSONDecoder` reads: a claim it read otherwise
    /// (a date rounded the other way, an `aud` array taken for a string, a member of the wrong
    /// type accepted) would be trusted after the signature check as something the app did not sign.
    @Test(
        "claims read without JSONDecoder are the claims JSONDecoder reads, and what it refuses stays refused",
        arguments: [
            #"{"sub":"u","aud":"a","iat":1,"exp":2,"jti":"j"}"#,
            #"{"iss":"i","sub":"u","aud":["a","b"],"iat":1.9,"exp":-2.5,"jti":"j","nonce":"n"}"#,
            #"{"sub":null,"aud":null,"iat":null,"exp":1e3,"jti":"\u00e9\n","extra":{"x":[1]}}"#,
            #"{"exp":1e15}"#, #"{"exp":-1e15}"#, #"{"exp":999999999999999.9}"#, #"{"exp":1e400}"#,
            #"{"exp":1e-400}"#, #"{"iat":-1e-400}"#, #"{"exp":4.9e-324}"#, #"{"exp":-0}"#, #"{"exp":-0.5}"#,
            #"{"exp":1.0E+2}"#, #"{"exp":12345678901234567890}"#, #"{"exp":0.1e1}"#, #"{"exp":0e5}"#, #"{"exp":0}"#,
            #"{"exp":999999999999999}"#, #"{"exp":-999999999999999}"#, #"{"exp":1000000000000000}"#,
            #"{"iat":"1"}"#, #"{"iat":true}"#, #"{"sub":1}"#, #"{"aud":1}"#, #"{"aud":[1]}"#, #"{"nonce":false}"#,
            #"{"sub":"a","sub":"b"}"#, #"[]"#, #""x""#, #"{"sub":"u""#, "", #"{"sub":"\ud800"}"#,
            "{\"sub\":\"\u{7f}\"}", #" { "aud" : "a" } "#,
        ])
    func claimsAsJSONDecoderReadsThem(text: String) {
        let bytes = Array(text.utf8)
        let fast = DeviceJWTClaims.decode(bytes).map(Self.fields)
        let decoded = (try? JSONDecoder().decode(DeviceJWTClaims.self, from: Data(bytes))).map(Self.fields)
        #expect(fast == decoded)
    }

    @Test("the claims an app signs, one audience and integer dates, are read without JSONDecoder")
    func flatClaimsTakeTheFastPath() throws {
        let text = #"{"iss":"i","sub":"u","aud":"a","iat":1,"exp":2,"jti":"j","nonce":"n"}"#
        let members = try #require(JSONObjectReader.members(Array(text.utf8)))
        let claims = try #require(DeviceJWTClaims(members))
        #expect(Self.fields(claims) == #"Optional("i") Optional("u") ["a"] Optional(1) Optional(2) Optional("j") Optional("n")"#)
    }

    @Test(
        "a header read without JSONDecoder is the header JSONDecoder reads",
        arguments: [#"{"alg":"ES256","kid":"k1"}"#, #"{"alg":null}"#, #"{"alg":1}"#, #"{"kid":["k"]}"#, "{}", "[]", "x"])
    func headerAsJSONDecoderReadsIt(text: String) {
        let bytes = Array(text.utf8)
        let fast = DeviceJWT.Header.decode(bytes).map { [$0.alg, $0.kid] }
        let decoded = (try? JSONDecoder().decode(DeviceJWT.Header.self, from: Data(bytes))).map { [$0.alg, $0.kid] }
        #expect(fast == decoded)
    }

    private static func fields(_ claims: DeviceJWTClaims) -> String {
        "\(String(describing: claims.iss)) \(String(describing: claims.sub)) \(claims.aud) "
            + "\(String(describing: claims.iat)) \(String(describing: claims.exp)) \(String(describing: claims.jti)) "
            + "\(String(describing: claims.nonce))"
    }
}
