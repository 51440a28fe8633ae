import Foundation
import SesameCore

/// DPoP (RFC 9449): proofs are single-use across every instance, expire and are swept, and a
/// refresh token's key binding survives rotation.
enum DPoPChecks {
    static let all = [
        ConformanceCheck("dpop: 20 concurrent claims of one proof, exactly 1 wins; expired, it can be claimed again") {
            store, clock in
            let now = clock.now()
            let results = try await concurrently(20) {
                try await store.claimDPoPProof([7, 7], expiresAt: now + 300, at: now)
            }
            try await expect(results.filter { $0 }.count == 1, "one claim wins")
            try await expect(try await store.claimDPoPProof([7, 8], expiresAt: now + 300, at: now), "another proof is new")
            clock.advance(by: 301)
            try await expect(
                try await store.claimDPoPProof([7, 7], expiresAt: clock.now() + 300, at: clock.now()),
                "an expired id is free again")
        },
        ConformanceCheck("dpop: expired proofs are swept") { store, clock in
            let start = clock.now()
            _ = try await store.claimDPoPProof([7, 9], expiresAt: start + 60, at: start)
            clock.advance(by: 120)
            let now = clock.now()
            _ = try await store.claimDPoPProof([7, 10], expiresAt: now + 60, at: now)
            let counts = try await store.sweep(now: now, windowsBefore: now - 86400, outboxBefore: now - 86400)
            try await expect(counts.removed["dpop_proofs"] == 1, "the expired proof only: \(counts.removed)")
        },
        ConformanceCheck("dpop: a bound refresh token is spent only with its key, and its heir stays bound") {
            store, clock in
            let now = clock.now()
            var token = Fixture.refreshToken(hash: 31, at: now)
            token.dpopThumbprint = "key-a"
            try await store.createRefreshToken(token)
            try await store.createRefreshToken(Fixture.refreshToken(family: "other", hash: 32, at: now))
            func rotate(_ hash: UInt8, _ key: RefreshKeyRequirement, client: String = "client", heir: UInt8 = 0)
                async throws -> RefreshRotation
            {
                try await store.rotateRefreshToken(
                    hashes: [Array(repeating: hash, count: 32)], clientID: client, at: now, reuseInterval: 0, key: key
                ) {
                    var next = Fixture.refreshToken(family: $0.familyID, hash: heir, at: now)
                    next.dpopThumbprint = $0.dpopThumbprint
                    return next
                }
            }
            // Attack: a stolen DPoP-bound refresh token presented without its key, or with another.
            try await expect(try await rotate(31, .presented(nil)) == .boundToAnotherKey, "no proof: refused")
            try await expect(try await rotate(31, .presented("key-b")) == .boundToAnotherKey, "another key: refused")
            try await expect(try await rotate(31, .presented("key-a"), client: "another") == .unknown, "per client")
            try await expect(
                try await rotate(31, .presented("key-a"), heir: 33).wasRotated, "its own key rotates it, though refused before")
            // Attack: the rotated token replayed without the key must not revoke the family.
            try await expect(try await rotate(31, .presented(nil)) == .boundToAnotherKey, "a spent one too")
            try await expect(try await rotate(33, .presented("key-b")) == .boundToAnotherKey, "the heir is bound to key-a")
            try await expect(
                try await rotate(33, .presented("key-a"), heir: 34).wasRotated, "the family lives on for the key's holder")
            try await expect(
                try await rotate(32, .presented("key-z"), heir: 35).wasRotated, "an unbound token rotates with any proof")
            try await expect(try await rotate(34, .any, heir: 36).wasRotated, "a requirement of any key rotates a bound token")
        },
        ConformanceCheck("dpop: an authorization code's key round-trips") { store, clock in
            var code = Fixture.authorizationCode(hash: 34, at: clock.now())
            code.dpopThumbprint = "key-b"
            try await store.createAuthorizationCode(code)
            let consumed = try await store.consumeAuthorizationCode(hashes: [code.codeHash], at: clock.now())
            try await expect(consumed?.dpopThumbprint == "key-b", "the code keeps its key")
        },
    ]
}
