import Foundation
import SesameCore

enum ChallengeChecks {
    static let all = [
        ConformanceCheck("challenges: attempts are counted and capped") { store, clock in
            try await store.createChallenge(Fixture.challenge(id: "c1", maxAttempts: 3, at: clock.now()))
            for expected in 1...3 {
                let attempt = try await store.registerAttempt(connection: "email", recipient: "ana@example.com", at: clock.now())
                try await expect(attempt?.attempts == expected, "attempt \(expected) is counted")
            }
            let fourth = try await store.registerAttempt(connection: "email", recipient: "ana@example.com", at: clock.now())
            try await expect(fourth == nil, "the code is dead after its cap")
            try await expect(try await store.consumeChallenge(id: "c1", at: clock.now()), "consume still marks the record")
        },
        ConformanceCheck("challenges: 50 concurrent attempts, cap 3, exactly 3 counted") { store, clock in
            try await store.createChallenge(Fixture.challenge(maxAttempts: 3, at: clock.now()))
            let now = clock.now()
            let results = try await concurrently(50) {
                try await store.registerAttempt(connection: "email", recipient: "ana@example.com", at: now)
            }
            try await expect(results.compactMap { $0 }.count == 3, "exactly 3 attempts pass the cap")
        },
        ConformanceCheck("challenges: 50 concurrent consumes, exactly 1 success") { store, clock in
            try await store.createChallenge(Fixture.challenge(id: "c1", at: clock.now()))
            let now = clock.now()
            let results = try await concurrently(50) { try await store.consumeChallenge(id: "c1", at: now) }
            try await expect(results.filter { $0 }.count == 1, "one consume wins, got \(results.filter { $0 }.count)")
            let after = try await store.registerAttempt(connection: "email", recipient: "ana@example.com", at: now)
            try await expect(after == nil, "a consumed challenge takes no attempts")
        },
        ConformanceCheck("challenges: only the newest is live") { store, clock in
            try await store.createChallenge(Fixture.challenge(id: "old", at: clock.now()))
            clock.advance(by: 1)
            try await store.createChallenge(Fixture.challenge(id: "new", at: clock.now()))
            let attempt = try await store.registerAttempt(connection: "email", recipient: "ana@example.com", at: clock.now())
            try await expect(attempt?.id == "new", "the attempt goes to the newest challenge")
            try await expect(!(try await store.consumeChallenge(id: "old", at: clock.now())), "the older one is superseded")
        },
        ConformanceCheck("challenges: a code a newer one retired is told from a used or unknown one") { store, clock in
            let old = Array(repeating: UInt8(7), count: 32)
            var used = Fixture.challenge(id: "used", recipient: "bo@example.com", at: clock.now())
            used.secretHash = Array(repeating: 9, count: 32)
            try await store.createChallenge(used)
            try await store.createChallenge(Fixture.challenge(id: "old", at: clock.now()))
            _ = try await store.consumeChallenge(id: "used", at: clock.now())
            clock.advance(by: 1)
            var newer = Fixture.challenge(id: "new", at: clock.now())
            newer.secretHash = Array(repeating: 8, count: 32)
            try await store.createChallenge(newer)
            clock.advance(by: 1)
            try await store.createChallenge(Fixture.challenge(id: "bo-new", recipient: "bo@example.com", at: clock.now()))
            func superseded(_ recipient: String, _ hash: [UInt8]) async throws -> Bool {
                try await store.isSuperseded(connection: "email", recipient: recipient, secretHashes: [hash])
            }
            try await expect(try await superseded("ana@example.com", old), "the retired code is superseded")
            try await expect(!(try await superseded("ana@example.com", newer.secretHash)), "the live code is not")
            try await expect(!(try await superseded("ana@example.com", used.secretHash)), "another's code is not")
            try await expect(!(try await superseded("bo@example.com", used.secretHash)), "a used code is not")
            try await expect(!(try await superseded("carl@example.com", old)), "an unknown recipient has none")
        },
        ConformanceCheck("challenges: expiry and garbage collection") { store, clock in
            try await store.createChallenge(Fixture.challenge(id: "c1", at: clock.now(), lifetime: 180))
            try await store.createChallenge(
                Fixture.challenge(id: "c2", recipient: "bo@example.com", at: clock.now(), lifetime: 900))
            clock.advance(by: 181)
            let expired = try await store.registerAttempt(connection: "email", recipient: "ana@example.com", at: clock.now())
            try await expect(expired == nil, "an expired code takes no attempts")
            try await expect(!(try await store.consumeChallenge(id: "c1", at: clock.now())), "an expired code cannot be consumed")
            try await expect(try await store.deleteExpiredChallenges(before: clock.now()) == 1, "GC removes only the expired one")
            try await expect(try await store.consumeChallenge(id: "c2", at: clock.now()), "the live one survives GC")
        },
        ConformanceCheck("challenges: the newest in any state, with its attempts and consumption") { store, clock in
            let none = try await store.newestChallenge(connection: "email", recipient: "ana@example.com")
            try await expect(none == nil, "no challenge, none newest")
            try await store.createChallenge(Fixture.challenge(id: "old", maxAttempts: 1, at: clock.now()))
            clock.advance(by: 1)
            try await store.createChallenge(Fixture.challenge(id: "new", maxAttempts: 1, at: clock.now()))
            _ = try await store.registerAttempt(connection: "email", recipient: "ana@example.com", at: clock.now())
            let spent = try await store.newestChallenge(connection: "email", recipient: "ana@example.com")
            try await expect(spent?.id == "new" && spent?.attempts == 1 && spent?.consumedAt == nil, "newest, used up")
            clock.advance(by: 200)
            let expired = try await store.newestChallenge(connection: "email", recipient: "ana@example.com")
            try await expect(expired?.id == "new", "an expired challenge is still the newest")
            let other = try await store.newestChallenge(connection: "email", recipient: "bo@example.com")
            try await expect(other == nil, "another recipient's challenges are not theirs")
        },
        ConformanceCheck("challenges: an attempt consumes only with a matching hash, client and id") { store, clock in
            try await store.createChallenge(Fixture.challenge(id: "c1", maxAttempts: 5, at: clock.now()))
            let right = Array(repeating: UInt8(7), count: 32)
            let wrong = Array(repeating: UInt8(8), count: 32)
            func attempt(_ acceptance: ChallengeAcceptance?) async throws -> ChallengeAttempt? {
                try await store.attemptChallenge(
                    connection: "email", recipient: "ana@example.com", at: clock.now(), within: [], consumeIf: acceptance)
            }
            let guess = try await attempt(ChallengeAcceptance(secretHashes: [wrong]))
            try await expect(guess?.challenge.attempts == 1 && guess?.consumed == false, "a wrong hash is counted, not consumed")
            let other = try await attempt(ChallengeAcceptance(secretHashes: [right], clientID: "another"))
            try await expect(other?.consumed == false, "another application's attempt does not consume")
            let stale = try await attempt(ChallengeAcceptance(secretHashes: [right], challengeID: "c0"))
            try await expect(stale?.consumed == false, "an attempt for another challenge does not consume")
            let checkOnly = try await attempt(nil)
            try await expect(checkOnly?.consumed == false && checkOnly?.challenge.attempts == 4, "no acceptance, no consumption")
            let won = try await attempt(
                ChallengeAcceptance(secretHashes: [wrong, right], clientID: "client", challengeID: "c1"))
            try await expect(won?.consumed == true && won?.challenge.attempts == 5, "the right hash under any key consumes")
            try await expect(try await attempt(ChallengeAcceptance(secretHashes: [right])) == nil, "and only once")
        },
        ConformanceCheck("challenges: an attempt that consumes brings the recipient's stored user, and only then") {
            store, clock in
            try await store.createChallenge(Fixture.challenge(id: "c1", maxAttempts: 5, at: clock.now()))
            try await store.createChallenge(Fixture.challenge(id: "c2", recipient: "cy@example.com", at: clock.now()))
            var ana = Fixture.user(id: "u-ana", at: clock.now())
            ana.name = "Ana"
            try await store.createUser(ana)
            try await store.createUser(Fixture.user("bo@example.com", id: "u-bo", at: clock.now()))
            func attempt(_ recipient: String, _ hash: UInt8?) async throws -> ChallengeAttempt? {
                try await store.attemptChallenge(
                    connection: "email", recipient: recipient, at: clock.now(), within: [],
                    consumeIf: hash.map { ChallengeAcceptance(secretHashes: [Array(repeating: $0, count: 32)]) })
            }
            let wrong = try await attempt("ana@example.com", 8)
            try await expect(wrong?.consumed == false && wrong?.user == nil, "a wrong secret brings no user")
            let won = try await attempt("ana@example.com", 7)
            let stored = try await store.user(id: "u-ana")
            try await expect(won?.consumed == true && won?.user == stored && stored?.name == "Ana", "the recipient's user, whole")
            let unknown = try await attempt("cy@example.com", 7)
            try await expect(unknown?.consumed == true && unknown?.user == nil, "no user for a recipient without one")
        },
        ConformanceCheck("challenges: no attempt is counted once a budget counter has reached its limit") { store, clock in
            try await store.createChallenge(Fixture.challenge(id: "c1", maxAttempts: 5, at: clock.now()))
            let now = clock.now()
            let budget = [
                RateLimitCounter(key: "fail:3600:ana", windowStart: now, limit: 2),
                RateLimitCounter(key: "fail:86400:ana", windowStart: now - 60, limit: 9),
            ]
            func attempt() async throws -> ChallengeAttempt? {
                try await store.attemptChallenge(
                    connection: "email", recipient: "ana@example.com", at: now, within: budget, consumeIf: nil)
            }
            _ = try await store.hit(key: "fail:3600:ana", windowStart: now - 3600)
            _ = try await store.hit(key: "fail:3600:ana", windowStart: now - 3600)
            try await expect(try await attempt()?.challenge.attempts == 1, "an older window's count does not stop it")
            _ = try await store.hit(key: "fail:3600:ana", windowStart: now)
            try await expect(try await attempt()?.challenge.attempts == 2, "under the limit, counted")
            _ = try await store.hit(key: "fail:3600:ana", windowStart: now)
            try await expect(try await attempt() == nil, "at the limit, refused")
            let newest = try await store.newestChallenge(connection: "email", recipient: "ana@example.com")
            try await expect(newest?.attempts == 2, "and nothing counted")
        },
        ConformanceCheck("challenges: 50 concurrent right attempts, exactly 1 consumes") { store, clock in
            try await store.createChallenge(Fixture.challenge(maxAttempts: 100, at: clock.now()))
            let now = clock.now()
            let acceptance = ChallengeAcceptance(secretHashes: [Array(repeating: 7, count: 32)])
            let results = try await concurrently(50) {
                try await store.attemptChallenge(
                    connection: "email", recipient: "ana@example.com", at: now, within: [], consumeIf: acceptance)
            }
            let consumed = results.filter { $0?.consumed == true }.count
            try await expect(consumed == 1, "one attempt consumes, got \(consumed)")
        },
        ConformanceCheck("challenges: a refund gives one attempt back") { store, clock in
            try await store.createChallenge(Fixture.challenge(id: "c1", maxAttempts: 1, at: clock.now()))
            _ = try await store.registerAttempt(connection: "email", recipient: "ana@example.com", at: clock.now())
            try await store.refundAttempt(challengeID: "c1")
            let again = try await store.registerAttempt(connection: "email", recipient: "ana@example.com", at: clock.now())
            try await expect(again?.attempts == 1, "the refunded attempt can be used again")
        },
    ]
}
