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
        ConformanceCheck("dpop: a refresh token's key round-trips and stays with its heir") { store, clock in
            let now = clock.now()
            var token = Fixture.refreshToken(hash: 31, at: now)
            token.dpopThumbprint = "key-a"
            try await store.createRefreshToken(token)
            try await store.createRefreshToken(Fixture.refreshToken(family: "other", hash: 32, at: now))
            let first: [[UInt8]] = [Array(repeating: 31, count: 32)]
            try await expect(try await store.refreshTokenBinding(hashes: first, clientID: "client") == "key-a", "bound")
            let unbound = try await store.refreshTokenBinding(hashes: [Array(repeating: 32, count: 32)], clientID: "client")
            try await expect(unbound == .some(nil), "an unbound token exists without a key")
            try await expect(try await store.refreshTokenBinding(hashes: first, clientID: "another") == nil, "per client")
            _ = try await store.rotateRefreshToken(hashes: first, clientID: "client", at: now, reuseInterval: 0) {
                var heir = Fixture.refreshToken(family: $0.familyID, hash: 33, at: now)
                heir.dpopThumbprint = $0.dpopThumbprint
                return heir
            }
            let heir = try await store.refreshTokenBinding(hashes: [Array(repeating: 33, count: 32)], clientID: "client")
            try await expect(heir == "key-a", "the heir is bound to the same key")
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
