import Foundation
import SesameCore

/// The storage side of the security rules: the refresh reuse interval, family revocation,
/// cleanup on first verification, failure-budget counters and the sweeper.
enum SecurityChecks {
    static let all = [
        ConformanceCheck("refresh tokens: one retry within the reuse interval, while the heir is unused") { store, clock in
            let now = clock.now()
            let (old, heir) = try await rotatedOnce(store, at: now)
            clock.advance(by: 5)
            let retry = try await store.rotateRefreshToken(
                hashes: old, clientID: "client", at: clock.now(), reuseInterval: 10, replacement: heir)
            guard case .retried(let previous) = retry else {
                throw ConformanceFailure(message: "not a retry: \(retry)", location: "")
            }
            try await expect(previous.familyID == "family" && previous.authTime == now, "the retry returns the rotated token")
            let second = try await store.rotateRefreshToken(
                hashes: old, clientID: "client", at: clock.now(), reuseInterval: 10, replacement: heir)
            try await expect(second == .reused(familyID: "family"), "a second retry is reuse")
            try await expect(try await store.isRefreshFamilyRevoked("family"), "and revokes the family")
            try await expect(!(try await store.isRefreshFamilyRevoked("other")), "other families are untouched")
        },
        ConformanceCheck("refresh tokens: 20 concurrent retries, exactly 1 succeeds") { store, clock in
            let now = clock.now()
            let (old, heir) = try await rotatedOnce(store, at: now)
            let results = try await concurrently(20) {
                try await store.rotateRefreshToken(hashes: old, clientID: "client", at: now, reuseInterval: 10, replacement: heir)
            }
            try await expect(results.filter { if case .retried = $0 { true } else { false } }.count == 1, "one retry wins")
        },
        ConformanceCheck("users: tokens_valid_after round-trips; a user's device keys go at once") { store, clock in
            var user = Fixture.user(at: clock.now())
            user.tokensValidAfter = clock.now()
            try await store.createUser(user)
            try await expect(try await store.user(id: user.id)?.tokensValidAfter == clock.now(), "stored")
            _ = try await store.updateUser(id: user.id) { $0.tokensValidAfter = nil }
            try await expect(try await store.user(id: user.id)?.tokensValidAfter == nil, "updated")
            for device in ["a", "b"] {
                try await store.saveDeviceCredential(
                    DeviceCredential(
                        id: "dcr_\(device)", userID: user.userID, clientID: "client", deviceID: device, deviceName: device,
                        algorithm: .es256, publicKey: [1], fingerprint: "f", keyBits: 256, createdAt: clock.now()))
            }
            try await expect(try await store.deleteDeviceCredentials(userID: user.userID) == 2, "both removed")
            try await expect(try await store.deviceCredentials(userID: user.userID, clientID: nil).isEmpty, "none left")
        },
        ConformanceCheck("rate limits: count reads a window without adding to it") { store, clock in
            let window = clock.now()
            try await expect(try await store.count(key: "fail:x", windowStart: window) == 0, "empty")
            _ = try await store.hit(key: "fail:x", windowStart: window)
            _ = try await store.hit(key: "fail:x", windowStart: window)
            try await expect(try await store.count(key: "fail:x", windowStart: window) == 2, "two")
            try await expect(try await store.count(key: "fail:x", windowStart: window + 3600) == 0, "another window")
        },
        ConformanceCheck("rate limits: counts reads several counters, each in its own window, in order") { store, clock in
            let window = clock.now()
            _ = try await store.hit(key: "fail:a", windowStart: window)
            _ = try await store.hit(key: "fail:a", windowStart: window)
            _ = try await store.hit(key: "fail:b", windowStart: window - 3600)
            let counters = ["fail:a", "fail:b", "fail:none"].map { RateLimitCounter(key: $0, windowStart: window, limit: 9) }
            try await expect(try await store.counts(counters) == [2, 0, 0], "a's two; b's count is of an older window")
            try await expect(try await store.counts(counters.reversed()) == [0, 0, 2], "in the order asked")
            try await expect(try await store.counts([]) == [], "nothing asked, nothing read")
        },
        ConformanceCheck("rate limits: a series of counters stops at the first over its limit") { store, clock in
            let window = clock.now()
            let series = [
                RateLimitCounter(key: "ip:1", windowStart: window, limit: 1),
                RateLimitCounter(key: "to:ana", windowStart: window, limit: 5),
            ]
            try await expect(try await store.hit(series) == [1, 1], "both counted while under their limits")
            try await expect(try await store.hit(series) == [2], "the first over its limit stops the series")
            try await expect(try await store.count(key: "to:ana", windowStart: window) == 1, "the second was not counted")
        },
        ConformanceCheck("rate limits: a longer series stops in the middle, starts over in a new window") { store, clock in
            let window = clock.now()
            let series = [("ip:2", 5), ("to:bo", 1), ("sms:all", 5)].map {
                RateLimitCounter(key: $0.0, windowStart: window, limit: $0.1)
            }
            try await expect(try await store.hit(series) == [1, 1, 1], "all three counted")
            try await expect(try await store.hit(series) == [2, 2], "the middle one over its limit stops the third")
            try await expect(try await store.count(key: "sms:all", windowStart: window) == 1, "the third was not counted")
            let next = series.map { RateLimitCounter(key: $0.key, windowStart: window + 3600, limit: $0.limit) }
            try await expect(try await store.hit(next) == [1, 1, 1], "a new window counts from one")
            let twice = [RateLimitCounter(key: "ip:3", windowStart: window, limit: 5)]
            try await expect(try await store.hit(twice + twice) == [1, 2], "one key twice is counted twice")
        },
        ConformanceCheck("sweep: removes expired rows of every kind and keeps live ones") { store, clock in
            let start = clock.now()
            try await store.createChallenge(Fixture.challenge(recipient: "old@example.com", at: start))
            try await store.createAuthorizationCode(Fixture.authorizationCode(hash: 9, at: start))
            _ = try await store.hit(key: "old", windowStart: start)
            _ = try await store.claimAssertionID([9], expiresAt: start + 60, at: start)
            clock.advance(by: 3 * 86400)
            let now = clock.now()
            try await store.createChallenge(Fixture.challenge(recipient: "new@example.com", at: now))
            _ = try await store.hit(key: "new", windowStart: now)
            let counts = try await store.sweep(now: now, windowsBefore: now - 86400, outboxBefore: now - 86400)
            try await expect(counts.removed["challenges"] == 1, "the expired challenge: \(counts.removed)")
            try await expect(counts.removed["authorization_codes"] == 1 && counts.removed["device_assertions"] == 1, "codes, jti")
            try await expect(counts.removed["rate_limits"] == 1, "the old window")
            try await expect(
                try await store.registerAttempt(connection: "email", recipient: "new@example.com", at: now) != nil,
                "the live challenge stays")
            try await expect(try await store.count(key: "new", windowStart: now) == 1, "the live window stays")
            let again = try await store.sweep(now: now, windowsBefore: now - 86400, outboxBefore: now - 86400)
            try await expect(again.total == 0, "a second sweep finds nothing")
        },
    ]

    /// A stored token (hash 1) rotated once into its heir (hash 2): the old token's hashes and
    /// the replacement builder, for presenting it again.
    private static func rotatedOnce(
        _ store: any SesameStorage, at now: Date
    ) async throws -> ([[UInt8]], @Sendable (RefreshToken) -> RefreshToken) {
        try await store.createRefreshToken(Fixture.refreshToken(hash: 1, at: now))
        let heir: @Sendable (RefreshToken) -> RefreshToken = { Fixture.refreshToken(family: $0.familyID, hash: 2, at: now) }
        let old: [[UInt8]] = [Array(repeating: 1, count: 32)]
        _ = try await store.rotateRefreshToken(hashes: old, clientID: "client", at: now, reuseInterval: 10, replacement: heir)
        return (old, heir)
    }
}
