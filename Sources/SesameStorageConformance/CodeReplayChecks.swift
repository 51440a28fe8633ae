import Foundation
import SesameCore

/// A consumed authorization code presented again (RFC 6749 §4.1.2): the login of its first
/// exchange is revoked, with or without refresh tokens.
enum CodeReplayChecks {
    static let all = [
        ConformanceCheck("authorization codes: a replay revokes the family recorded at consumption, once or twice") {
            store, clock in
            let now = clock.now()
            let until = now.addingTimeInterval(3600)
            for hash in [UInt8(5), 6, 7] {
                try await store.createAuthorizationCode(Fixture.authorizationCode(hash: hash, at: now))
            }
            let consumed = try await store.consumeAuthorizationCode(
                hashes: [Array(repeating: 5, count: 32)], at: now, familyID: "fam-x")
            try await expect(consumed?.familyID == "fam-x", "the family is recorded on the consumed code")
            try await store.createRefreshToken(Fixture.refreshToken(family: "fam-x", hash: 50, at: now))
            try await expect(
                try await store.revokeReplayedAuthorizationCode(hashes: [Array(repeating: 5, count: 32)], at: now, until: until)
                    == "fam-x", "the replay names the family")
            try await expect(try await store.isRefreshFamilyRevoked("fam-x"), "and revokes it")
            try await expect(
                try await store.revokeReplayedAuthorizationCode(hashes: [Array(repeating: 5, count: 32)], at: now, until: until)
                    == "fam-x", "a second replay is no error")
            _ = try await store.consumeAuthorizationCode(hashes: [Array(repeating: 6, count: 32)], at: now, familyID: "fam-y")
            _ = try await store.revokeReplayedAuthorizationCode(hashes: [Array(repeating: 6, count: 32)], at: now, until: until)
            try await expect(try await store.isRefreshFamilyRevoked("fam-y"), "a family without refresh tokens is revoked too")
            try await expect(
                try await store.revokeReplayedAuthorizationCode(hashes: [Array(repeating: 7, count: 32)], at: now, until: until)
                    == nil, "an unconsumed code revokes nothing")
            try await expect(
                try await store.consumeAuthorizationCode(hashes: [Array(repeating: 7, count: 32)], at: now) != nil,
                "and still works")
            try await expect(
                try await store.revokeReplayedAuthorizationCode(hashes: [Array(repeating: 9, count: 32)], at: now, until: until)
                    == nil, "an unknown code is nil")
        }
    ]
}
