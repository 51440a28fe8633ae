import SesameAPI
import SesameWebAuthn
import SesameWebAuthnTesting
import Testing

/// The strict CBOR decoder, exercised through stored COSE keys (its only public entry point).
@Suite("Strict CBOR decoding")
struct CBORDecoderTests {
    private func parseKey(_ bytes: [UInt8]) throws {
        var fixture = AuthenticationFixture()
        fixture.signCount = 1
        _ = try WebAuthnRelyingParty.fixture.verifyAuthentication(
            credential: try fixture.build(), expectedChallenge: fixture.challenge,
            credentialPublicKey: bytes, storedSignCount: 0)
    }

    @Test(
        "hostile or non-canonical encodings are refused",
        arguments: [
            [0xA1, 0x01],  // map entry truncated
            [0x5A, 0xFF, 0xFF, 0xFF, 0xFF],  // byte string longer than the input
            [0xBF, 0x01, 0x02, 0xFF],  // indefinite-length map
            [0xA1, 0x18, 0x01, 0x02],  // key 1 not in shortest form
            [0xA2, 0x01, 0x02, 0x01, 0x02],  // duplicate key
            [0xC0, 0xA0],  // tag
            [0xF9, 0x3C, 0x00],  // half float
            [0xA0, 0x00],  // trailing byte
            [0x9B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // absurd array count
            Array(repeating: 0x81, count: 40) + [0x00],  // nesting deeper than the limit
            [0x61, 0xFF],  // invalid UTF-8 text
        ] as [[UInt8]])
    func refused(bytes: [UInt8]) {
        #expect(throws: WebAuthnError.malformedPublicKey) { try parseKey(bytes) }
    }

    @Test("base64url decoding tolerates padding; the tolerant form also the standard alphabet")
    func base64() {
        #expect(Base64URL.decode("Dw4NDAsKCQgHBgUEAwIBAA==") == Array((0...15).reversed()))
        #expect(Base64URL.decode("-_8") == Base64URL.decodeTolerant("+/8="))
        #expect(Base64URL.decode("+/8=") == nil, "tokens and JOSE fields use the URL alphabet only")
        #expect(Base64URL.decode("bbb") == Base64URL.decode("bbY"))
        #expect(Base64URL.decode("abcde") == nil)
        #expect(Base64URL.decode("ab$d") == nil)
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }
}
