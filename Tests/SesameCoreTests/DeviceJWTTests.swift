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
}
