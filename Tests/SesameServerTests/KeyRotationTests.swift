import Foundation
import HTTPTypes
import HummingbirdTesting
import JWTKit
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

@Suite("Signing-key rotation: publish first, sign later, retire last")
struct KeyRotationTests {
    private func jwks(_ h: Harness) async throws -> [String] {
        try await h.get("/.well-known/jwks.json").decode(JWKSDocument.self).keys.map(\.kid)
    }

    private func kid(of token: String) throws -> String? {
        String(token.split(separator: ".")[0]).base64URLJSON?["kid"] as? String
    }

    /// A relying party that caches the JWKS would reject tokens signed by a key it has not
    /// seen yet, so a new key is published for `activateAfter` before it signs anything.
    @Test("a rotated key is published at once and signs only after its activation delay")
    func publishBeforeSigning() async throws {
        try await Harness.run(configure: { $0.keyRefreshInterval = 30 }) { h in
            let rotation = SigningKeyRotation(storage: h.sesame.storage, clock: h.clock)
            let old = try #require(try await rotation.list().first).record.kid
            let new = try await rotation.rotate(activateAfter: 600).record.kid
            #expect(try await jwks(h) == [old], "instances learn of the key on their next reload, not before")
            h.clock.advance(by: 31)
            #expect(Set(try await jwks(h)) == [old, new])
            #expect(try kid(of: try #require(try await h.login(email: "ana@example.com").idToken)) == old)
            h.clock.advance(by: 600)
            let fresh = try await h.login(email: "bob@example.com")
            #expect(try kid(of: try #require(fresh.idToken)) == new)
            #expect(try await rotation.list().map(\.state) == [.current, .previous])
        }
    }

    /// Tokens signed by the replaced key must keep verifying until their lifetime ends;
    /// retiring the key is the operator's decision (e.g. after a compromise).
    @Test("the replaced key keeps verifying until it is retired; then its tokens stop working")
    func retire() async throws {
        try await Harness.run(configure: {
            $0.keyRefreshInterval = 1; $0.audiences = ["https://api.example.com"]
        }) { h in
            let rotation = SigningKeyRotation(storage: h.sesame.storage, clock: h.clock)
            let old = try #require(try await rotation.list().first).record.kid
            _ = try await h.start(email: "ana@example.com")
            let token = try await h.otp(
                "ana@example.com", h.code(for: "ana@example.com"), scope: "openid", audience: "https://api.example.com"
            ).decode(TokenBody.self).accessToken
            #expect(try kid(of: token) == old, "a JWT access token, verified by the server at /userinfo")
            let new = try await rotation.rotate(activateAfter: 0).record.kid
            h.clock.advance(by: 2)
            let userinfo = { try await h.get("/userinfo", headers: [.authorization: "Bearer \(token)"]).status }
            #expect(try await userinfo() == .ok, "a token of the previous key still verifies")
            try await rotation.retire(kid: old)
            h.clock.advance(by: 2)
            #expect(try await jwks(h) == [new])
            #expect(try await userinfo() == .unauthorized, "a retired key's tokens no longer verify")
        }
    }

    @Test("the key that signs now cannot be retired, nor an unknown key")
    func retireRefusals() async throws {
        try await Harness.run { h in
            let rotation = SigningKeyRotation(storage: h.sesame.storage, clock: h.clock)
            let current = try #require(try await rotation.list().first).record.kid
            await #expect(throws: SesameError.invalidRequest("Key \(current) signs tokens now; rotate to a new key first.")) {
                try await rotation.retire(kid: current)
            }
            await #expect(throws: SesameError.self) { try await rotation.retire(kid: "nope") }
            await #expect(throws: SesameError.self) { _ = try await rotation.rotate(activateAfter: -1) }
        }
    }

    /// The database is shared: a failed reload must not take the keys (and so every login) down.
    @Test("a reload that fails keeps the current keys")
    func reloadFailureKeepsKeys() async throws {
        let clock = TestClock()
        let record = try TokenSigner.generateKey(at: clock.now())
        let ring = try await KeyRing(records: [record], storage: UnreachableKeys(), clock: clock, refreshInterval: 1)
        clock.advance(by: 5)
        #expect(await ring.signer().currentKID == record.kid)
    }
}

/// Key storage whose database is down.
private struct UnreachableKeys: KeyRepository {
    func signingKeys() async throws -> [SigningKeyRecord] { throw StorageError.unavailable("down") }
    func addSigningKey(_ key: SigningKeyRecord) async throws { throw StorageError.unavailable("down") }
    func retireSigningKey(kid: String, at: Date) async throws -> Bool { throw StorageError.unavailable("down") }
    func hmacSecrets() async throws -> [[UInt8]] { throw StorageError.unavailable("down") }
    func addHMACSecret(_ secret: [UInt8], at: Date) async throws { throw StorageError.unavailable("down") }
    func hmacKeys() async throws -> [HMACKeyRecord] { throw StorageError.unavailable("down") }
    func addHMACKey(_ key: HMACKeyRecord) async throws { throw StorageError.unavailable("down") }
    func withSetupLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T { try await body() }
}
