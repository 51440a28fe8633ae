import Foundation
import SesameStorageConformance
import SesameStorageSQL
import Testing

@testable import SesameCore

/// HMAC key rotation across instances.
///
/// The failure this prevents: an instance that hashes a new code or session cookie under a key
/// another instance has not loaded yet, so the person's next request, sent to that other
/// instance, is refused; and a rotation that drops the old key, so every refresh token and
/// management token issued before it stops working.
@Suite("HMAC keys rotate without a restart")
struct HMACKeysTests {
    @Test("a rotated key verifies at once, hashes only from its activation, and older keys keep verifying")
    func activation() async throws {
        let clock = TestClock()
        let store = try await SQLStorage.sqlite(path: nil)
        defer { Task { try? await store.shutdown() } }
        try await store.addHMACSecret(Array(repeating: 1, count: 32), at: clock.now())
        let keys = HMACKeys(try await store.hmacKeys(), clock: clock)
        let hasher = SecretHasher(ring: keys)
        let before = hasher.hash("refresh-token", purpose: .refreshToken)

        let rotation = HMACKeyRotation(storage: store, clock: clock, random: SystemRandomSource())
        let activeFrom = try await rotation.rotate(activateAfter: 600)
        #expect(activeFrom == clock.now().addingTimeInterval(600))
        // Another instance reloads; until the activation it hashes as every other instance does.
        let other = HMACKeys(try await store.hmacKeys(), clock: clock)
        let pending = SecretHasher(ring: other).hash("code", purpose: .challenge)
        #expect(pending == hasher.hash("code", purpose: .challenge))

        clock.advance(by: 601)
        try await keys.reload(from: store)
        let after = hasher.hash("code", purpose: .challenge)
        #expect(after != pending, "the new key hashes once active")
        #expect(SecretHasher(ring: other).matches("code", stored: after, purpose: .challenge))
        #expect(hasher.matches("refresh-token", stored: before, purpose: .refreshToken), "old hashes still verify")
        #expect(try await rotation.list().count == 2)
    }

    @Test("outbox payloads sealed under a new key open on an instance that has reloaded it")
    func payloads() async throws {
        let clock = TestClock()
        let store = try await SQLStorage.sqlite(path: nil)
        defer { Task { try? await store.shutdown() } }
        try await store.addHMACSecret(Array(repeating: 1, count: 32), at: clock.now())
        let stale = HMACKeys(try await store.hmacKeys(), clock: clock)
        _ = try await HMACKeyRotation(storage: store, clock: clock, random: SystemRandomSource()).rotate(activateAfter: 0)
        clock.advance(by: 1)
        let fresh = HMACKeys(try await store.hmacKeys(), clock: clock)
        let sealed = try PayloadSeal(keys: fresh).seal(Data("code 123456".utf8))
        #expect(throws: SesameError.self) { try PayloadSeal(keys: stale).open(sealed) }
        try await stale.reload(from: store)
        #expect(try PayloadSeal(keys: stale).open(sealed) == Data("code 123456".utf8))
    }

    @Test("a negative delay is refused")
    func negativeDelay() async throws {
        let store = try await SQLStorage.sqlite(path: nil)
        defer { Task { try? await store.shutdown() } }
        let rotation = HMACKeyRotation(storage: store, clock: TestClock(), random: SystemRandomSource())
        await #expect(throws: SesameError.self) { try await rotation.rotate(activateAfter: -1) }
    }
}
