import Crypto
import Foundation
import SesameAPI
import SesameWebAuthn
import Testing

@testable import SesameCore

@Suite("Identifiers, scopes, secrets and opaque tokens")
struct SupportTests {
    @Test(
        "emails are trimmed and lower-cased; implausible ones refused",
        arguments: [
            (" Ana@Example.COM ", "ana@example.com"), ("a@b.co", "a@b.co"), ("no-at-sign", nil), ("a@b", nil),
            ("a@@b.com", nil), ("a b@c.com", nil), ("a@.com", nil), ("a@b..com", nil), ("<a>@b.com", nil),
            (String(repeating: "a", count: 65) + "@b.com", nil),
        ] as [(String, String?)])
    func emails(raw: String, expected: String?) {
        #expect(Identifier.normalizedEmail(raw) == expected)
    }

    @Test(
        "phone numbers follow Auth0's E.164 pattern",
        arguments: [
            ("+14155550123", "+14155550123"), (" +44 ", "+44"), ("14155550123", nil), ("+1415555012345678", nil),
            ("+1-415", nil), ("+", nil), ("+١٢٣", nil),
        ] as [(String, String?)])
    func phones(raw: String, expected: String?) {
        #expect(Identifier.normalizedPhone(raw) == expected)
    }

    @Test("random bytes come in the asked number, hex is two lowercase digits per byte")
    func randomAndHex() {
        let random = SystemRandomSource()
        #expect(random.bytes(0).isEmpty && random.bytes(33).count == 33)
        #expect(random.bytes(32) != random.bytes(32))
        // More than one system call's worth (256 bytes): every chunk is filled, none left zero.
        let long = random.bytes(1000)
        #expect(long.count == 1000 && long != random.bytes(1000))
        for chunk in stride(from: 0, to: 1000, by: 250) { #expect(long[chunk..<chunk + 250].contains { $0 != 0 }) }
        #expect(Hex.encode([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
        #expect(random.hex(12).count == 24 && random.hex(12).allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test("ordered ids: the shape of hex(12), sorted by their millisecond, random within it")
    func orderedIDs() {
        let random = SystemRandomSource()
        let date = Date(timeIntervalSince1970: 1_800_000_000.5)
        let id = random.orderedHex(at: date)
        #expect(id.count == 24 && id.allSatisfy { "0123456789abcdef".contains($0) })
        // 1,800,000,000,500 ms is 0x01a3185c51f4: the time comes first, big-endian.
        #expect(id.hasPrefix("01a3185c51f4"))
        #expect(random.orderedHex(at: date) != id, "the same millisecond still gives another id")
        // Two milliseconds apart: a Double of seconds may fall a hair below a whole millisecond.
        let later = (1...50).map { random.orderedHex(at: date.addingTimeInterval(Double($0) * 0.002)) }
        #expect(([id] + later).sorted() == [id] + later, "each later id sorts after the one before")
        #expect(random.orderedHex(at: Date(timeIntervalSince1970: -5)).hasPrefix("000000000000"))
    }

    @Test("scopes keep order, drop duplicates, accept '+' and default to openid")
    func scopes() {
        #expect(Scope("openid profile openid email").description == "openid profile email")
        #expect(Scope("openid+offline_access").names == ["openid", "offline_access"])
        #expect(Scope(nil).description == "openid" && Scope("   ").description == "openid")
        #expect(Scope("openid profile").covers(Scope("profile")) && !Scope("openid").covers(Scope("email")))
    }

    @Test("secrets hash per purpose; a rotated-out key still matches until removed")
    func secretRotation() {
        let old = SecretHasher(keys: [Array(repeating: 1, count: 32)])
        let rotated = SecretHasher(keys: [Array(repeating: 2, count: 32), Array(repeating: 1, count: 32)])
        let stored = old.hash("123456", purpose: .challenge)
        #expect(rotated.matches("123456", stored: stored, purpose: .challenge))
        #expect(rotated.candidates("123456", purpose: .challenge).contains(stored))
        #expect(rotated.hash("123456", purpose: .challenge) != stored)
        // The purpose is part of the MAC: a code's hash is not a refresh token's.
        #expect(!old.matches("123456", stored: stored, purpose: .refreshToken))
        #expect(!SecretHasher(keys: [Array(repeating: 2, count: 32)]).matches("123456", stored: stored, purpose: .challenge))
    }

    /// Every stored code, token and session is this MAC: a change of its input would lock out
    /// every user with a session and every code in flight.
    @Test("a stored hash is HMAC-SHA256 over the purpose, a zero byte and the secret, under each key")
    func storedHashFormat() {
        let keys = [Array(repeating: UInt8(7), count: 32), Array(0..<UInt8(32))]
        let hasher = SecretHasher(keys: keys)
        for (secret, purpose) in [("123456", SecretPurpose.challenge), ("rt_é✓", .refreshToken), ("", .formToken)] {
            let expected = keys.map { key in
                Array(
                    HMAC<SHA256>.authenticationCode(
                        for: Array(purpose.rawValue.utf8) + [0] + Array(secret.utf8), using: SymmetricKey(data: key)))
            }
            #expect(hasher.hash(secret, purpose: purpose) == expected[0])
            #expect(hasher.candidates(secret, purpose: purpose) == expected)
            let again = hasher.hash(secret, purpose: purpose)
            #expect(again == expected[0], "the keyed MAC is reused unchanged")
        }
    }

    @Test("opaque access tokens: every field round-trips, awkward characters included, and older tokens still decode")
    func opaqueTokenFormat() throws {
        let hasher = SecretHasher(keys: [Array(repeating: 9, count: 32)])
        let tokens = [
            OpaqueAccessToken(sub: "email|abc", cid: "client", scp: "openid", iat: 1, exp: 2),
            OpaqueAccessToken(
                sub: "email|a\"b\\c\u{1}\u{1F}é/ü", cid: "c\nd", scp: "openid https://api.example.com/x?a=1&b=\"2\"",
                iat: -5, exp: Int64.max, jti: "j", fid: "f", ath: 0, iam: 1_700_000_000_123),
        ]
        for token in tokens {
            let encoded = try token.encode(with: hasher)
            #expect(OpaqueAccessToken.decode(encoded, with: hasher) == token)
            let payload = try #require(Base64URL.decode(String(encoded.dropFirst(4).prefix { $0 != "." })))
            #expect((try? JSONSerialization.jsonObject(with: Data(payload))) is [String: Any], "valid JSON")
            // A token minted before by JSONEncoder (which also escapes "/"), still accepted.
            let older = Base64URL.encode(try JSONEncoder().encode(token))
            let olderToken = "sat_\(older).\(Base64URL.encode(hasher.hash(older, purpose: .accessToken)))"
            #expect(OpaqueAccessToken.decode(olderToken, with: hasher) == token)
        }
    }

    @Test("constant-time comparison gives plain equality")
    func constantTime() {
        #expect(SecretHasher.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!SecretHasher.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!SecretHasher.constantTimeEquals([1, 2], [1, 2, 3]))
    }

    @Test("forged opaque access tokens: a changed payload, a foreign key or junk never decode")
    func opaqueTokenTampering() throws {
        let hasher = SecretHasher(keys: [Array(repeating: 9, count: 32)])
        let token = OpaqueAccessToken(sub: "email|abc", cid: "client", scp: "openid", iat: 1, exp: 2)
        let encoded = try token.encode(with: hasher)
        #expect(OpaqueAccessToken.decode(encoded, with: hasher) == token)
        // Attack: swap in another user's subject and keep the MAC.
        let parts = encoded.dropFirst(4).split(separator: ".").map(String.init)
        var forged = token
        forged.sub = "email|victim"
        let forgedPayload = Base64URL.encode(try JSONEncoder().encode(forged))
        #expect(OpaqueAccessToken.decode("sat_\(forgedPayload).\(parts[1])", with: hasher) == nil)
        // Attack: a token minted by another server (another key).
        let foreign = try token.encode(with: SecretHasher(keys: [Array(repeating: 8, count: 32)]))
        #expect(OpaqueAccessToken.decode(foreign, with: hasher) == nil)
        for junk in ["", "sat_", "sat_.", "sat_a.b.c", "Bearer x", "sat_" + String(repeating: "A", count: 5000)] {
            #expect(OpaqueAccessToken.decode(junk, with: hasher) == nil)
        }
    }

    @Test("passkey policies name every invalid setting")
    func passkeyPolicy() {
        #expect(PasskeyPolicy().problems().isEmpty)
        let bad = PasskeyPolicy(
            userVerification: "always", residentKey: "maybe", attestation: "full", algorithms: [], timeoutMilliseconds: 1)
        #expect(bad.problems().count == 5)
    }

    @Test("Android signing fingerprints become apk-key-hash origins")
    func androidFingerprints() {
        let fingerprint = (0..<32).map { String(format: "%02x", $0) }.joined(separator: ":")
        #expect(AndroidFingerprint.normalized(fingerprint) == fingerprint.uppercased())
        let origin = OriginPolicy.androidOrigin(fingerprint: fingerprint)
        #expect(origin == "android:apk-key-hash:" + Base64URL.encode(Array(0..<32)))
        #expect(AndroidFingerprint.bytes("AA:BB") == nil)
        #expect(AndroidFingerprint.bytes(fingerprint.replacingOccurrences(of: "1f", with: "zz")) == nil)
    }

    @Test("origins are scheme, host and port only")
    func origins() {
        #expect(OriginPolicy.origin(of: "https://login.example.com/") == "https://login.example.com")
        #expect(OriginPolicy.origin(of: "http://localhost:3000/a/b") == "http://localhost:3000")
        #expect(OriginPolicy.origin(of: "not a url") == nil)
    }
}
