import Foundation
import SesameCore

enum ChallengeRetryChecks {
    static let ana = "ana@example.com"
    /// The fixture challenge's secret hash, and another.
    static let right = ChallengeAcceptance(secretHashes: [Array(repeating: 7, count: 32)], clientID: "client")
    static let wrong = ChallengeAcceptance(secretHashes: [Array(repeating: 8, count: 32)], clientID: "client")

    /// One retry at `clock.now()` with a 10 s lease, consumed since `since` seconds ago.
    static func retry(
        _ store: any SesameStorage, _ clock: TestClock, since: TimeInterval = 30, acceptance: ChallengeAcceptance = right,
        budget: [RateLimitCounter] = []
    ) async throws -> ConsumedChallengeAttempt? {
        let now = clock.now()
        return try await store.attemptConsumedChallenge(
            connection: "email", recipient: ana, at: now,
            retry: ChallengeRetry(
                consumedSince: now.addingTimeInterval(-since), leaseUntil: now.addingTimeInterval(10),
                leaseOwner: UUID().uuidString, retries: 2, acceptance: acceptance),
            within: budget)
    }

    /// Consumes the newest code as a code exchange does: its consumer holds it for 10 s.
    static func consumeByExchange(_ store: any SesameStorage, _ clock: TestClock) async throws -> Bool {
        var acceptance = right
        acceptance.exchangeLeaseUntil = clock.now().addingTimeInterval(10)
        let attempt = try await store.attemptChallenge(
            connection: "email", recipient: ana, at: clock.now(), within: [], consumeIf: acceptance)
        return attempt?.consumed == true
    }

    static let all = [
        ConformanceCheck("challenge retries: only the newest code consumed since the window's start, counted and capped") {
            store, clock in
            try await store.createChallenge(Fixture.challenge(id: "c1", maxAttempts: 3, at: clock.now()))
            try await expect(try await retry(store, clock) == nil, "a live code is no retry")
            _ = try await store.registerAttempt(connection: "email", recipient: ana, at: clock.now())
            try await expect(try await consumeByExchange(store, clock), "consumed")
            try await store.createUser(Fixture.user(id: "u-ana", at: clock.now()))
            clock.advance(by: 11)
            let first = try await retry(store, clock, acceptance: wrong)
            try await expect(
                first?.attempt.challenge.id == "c1" && first?.attempt.challenge.attempts == 3
                    && first?.attempt.consumed == false && first?.attempt.user?.id == "u-ana" && first?.leased == false,
                "a wrong retry within the window is counted, brings the user and takes no lease")
            try await expect(try await retry(store, clock, since: 10) == nil, "consumed before the window: no retry")
            let now = clock.now()
            let spent = [RateLimitCounter(key: "fail:3600:ana", windowStart: now, limit: 1)]
            _ = try await store.hit(key: "fail:3600:ana", windowStart: now)
            try await expect(try await retry(store, clock, budget: spent) == nil, "a spent failure budget stops it")
            for expected in 4...5 {
                let counted = try await retry(store, clock, acceptance: wrong)
                try await expect(counted?.attempt.challenge.attempts == expected, "counted up to the cap plus the retries")
            }
            try await expect(try await retry(store, clock) == nil, "then the retries are used up")
            let newest = try await store.newestChallenge(connection: "email", recipient: ana)
            try await expect(newest?.attempts == 5, "nothing counted once refused")
        },
        ConformanceCheck("challenge retries: the consumer holds the code for its lease; released, one retry takes it") {
            store, clock in
            try await store.createChallenge(Fixture.challenge(id: "c1", maxAttempts: 10, at: clock.now()))
            try await store.createChallenge(Fixture.challenge(id: "link", recipient: "bo@example.com", at: clock.now()))
            try await expect(try await store.consumeChallenge(id: "link", at: clock.now()), "a link's code consumed")
            try await expect(try await consumeByExchange(store, clock), "consumed")
            clock.advance(by: 5)
            try await expect(try await retry(store, clock)?.leased == false, "within the consumer's lease: busy")
            let other = ChallengeAcceptance(secretHashes: right.secretHashes, clientID: "other")
            clock.advance(by: 6)
            try await expect(try await retry(store, clock, acceptance: other)?.leased == false, "another client: no lease")
            try await expect(try await retry(store, clock)?.leased == true, "after the lease the retry takes it")
            try await expect(try await retry(store, clock)?.leased == false, "and holds it against a second retry")
            try await store.settleChallengeExchange(id: "c1", answered: false, at: clock.now())
            try await expect(try await retry(store, clock)?.leased == true, "released by a failure: the next retry takes it")
            let link = try await store.attemptConsumedChallenge(
                connection: "email", recipient: "bo@example.com", at: clock.now(),
                retry: ChallengeRetry(
                    consumedSince: clock.now().addingTimeInterval(-30), leaseUntil: clock.now().addingTimeInterval(10),
                    leaseOwner: "x", retries: 2, acceptance: right),
                within: [])
            try await expect(link == nil, "a code consumed other than by an exchange has no retries")
        },
        ConformanceCheck("challenge retries: an answered exchange spends the code for good") { store, clock in
            try await store.createChallenge(Fixture.challenge(id: "c1", at: clock.now()))
            try await expect(try await consumeByExchange(store, clock), "consumed")
            try await store.settleChallengeExchange(id: "c1", answered: true, at: clock.now())
            clock.advance(by: 11)
            try await expect(try await retry(store, clock) == nil, "answered: no retry, nothing counted")
            try await store.settleChallengeExchange(id: "c1", answered: false, at: clock.now())
            try await expect(try await retry(store, clock) == nil, "a late release does not revive it")
        },
        ConformanceCheck("challenge retries: a newer code ends the retries of the consumed one") { store, clock in
            try await store.createChallenge(Fixture.challenge(id: "old", at: clock.now()))
            try await expect(try await consumeByExchange(store, clock), "consumed")
            clock.advance(by: 11)
            try await store.createChallenge(Fixture.challenge(id: "new", at: clock.now()))
            try await expect(try await retry(store, clock) == nil, "the consumed code was superseded")
            let newest = try await store.newestChallenge(connection: "email", recipient: ana)
            try await expect(newest?.id == "new" && newest?.attempts == 0, "and the new one is not counted")
        },
        ConformanceCheck("challenge retries: of 50 concurrent right retries exactly one takes the lease") { store, clock in
            try await store.createChallenge(Fixture.challenge(id: "c1", maxAttempts: 40, at: clock.now()))
            try await expect(try await consumeByExchange(store, clock), "consumed")
            clock.advance(by: 11)
            let results = try await concurrently(50) { try await retry(store, clock) }
            let counted = results.compactMap { $0 }
            let leased = counted.filter(\.leased).count
            try await expect(counted.count == 41 && leased == 1, "counted \(counted.count) (41), leased \(leased) (1)")
        },
    ]
}
