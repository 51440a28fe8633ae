import Crypto
import CryptoExtras
import Foundation
import SesameAPI
import Testing

@testable import SesameCore

/// Every token is an RS256 JWS by the current key that JWTKit, and any verifier holding only
/// the published JWKS, accepts; and nothing else may pass.
@Suite("Token signing: RS256 JWS by the current key")
struct TokenSignerTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func claims(_ sub: String = "email|5f7c8ec7c33c6c004bbafe82") -> IDTokenClaims {
        IDTokenClaims(
            iss: "https://id.example.com/", aud: "client", iat: 1_800_000_000, exp: 1_800_036_000, authTime: 1_799_999_000,
            nonce: "n-\"1\"/é", profile: UserInfo(sub: sub, name: "Zoë \\ \"Q\"", email: "zoe@example.com", emailVerified: true),
            sid: "family")
    }

    @Test("a signed token has the header, claims and signature a JWKS verifier expects")
    func signsVerifiableTokens() async throws {
        let older = try TokenSigner.generateKey(at: Self.now.addingTimeInterval(-100))
        let current = try TokenSigner.generateKey(at: Self.now.addingTimeInterval(-10))
        let signer = try await TokenSigner(records: [older, current], at: Self.now)
        for type in ["JWT", "at+jwt"] {
            let token = try await signer.sign(Self.claims(), type: type)
            let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            try #require(parts.count == 3)
            let headerJSON = try #require(Base64URL.decode(parts[0]))
            let header = try JSONSerialization.jsonObject(with: Data(headerJSON)) as? [String: String]
            #expect(header == ["alg": "RS256", "kid": current.kid, "typ": type])

            // Verified with nothing but the published modulus and exponent.
            let jwk = try #require(signer.jwks.keys.first { $0.kid == current.kid })
            let (modulus, exponent) = (try #require(Base64URL.decode(jwk.n)), try #require(Base64URL.decode(jwk.e)))
            let publicKey = try _RSA.Signing.PublicKey(n: modulus, e: exponent)
            let signatureBytes = try #require(Base64URL.decode(parts[2]))
            let signature = _RSA.Signing.RSASignature(rawRepresentation: signatureBytes)
            #expect(
                publicKey.isValidSignature(signature, for: Array("\(parts[0]).\(parts[1])".utf8), padding: .insecurePKCS1v1_5))

            // And by JWTKit, the claims unchanged.
            #expect(try await signer.verify(token, as: IDTokenClaims.self) == Self.claims())
        }
    }

    /// Forgery: a token whose claims were changed after signing, or signed by a key the
    /// server does not hold, must not verify.
    @Test("a changed payload or a foreign key does not verify")
    func refusesForgeries() async throws {
        let signer = try await TokenSigner(records: [try TokenSigner.generateKey(at: Self.now)], at: Self.now)
        let token = try await signer.sign(Self.claims())
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(try JSONEncoder().encode(Self.claims("email|victim")))
        await #expect(throws: (any Error).self) { try await signer.verify(parts.joined(separator: "."), as: IDTokenClaims.self) }
        let foreign = try await TokenSigner(records: [try TokenSigner.generateKey(at: Self.now)], at: Self.now)
        let foreignToken = try await foreign.sign(Self.claims())
        await #expect(throws: (any Error).self) { try await signer.verify(foreignToken, as: IDTokenClaims.self) }
    }
}
