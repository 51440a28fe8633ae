import Foundation
import SesameCore

enum ChallengeRetryChecks {
    static let all = [
        ConformanceCheck("challenge retries: only the newest code consumed since the window's start, counted and capped") {
            store, clock in
            func retry(since: TimeInterval = 30, budget: [RateLimitCounter] = []) async throws -> ChallengeAttempt? {
                try await store.attemptConsumedChallenge(
                    connection: "email", recipient: "ana@example.com", at: clock.now(),
                    consumedSince: clock.now().addingTimeInterval(-since), retries: 2, within: budget)
            }
            try await store.createChallenge(Fixture.challenge(id: "c1", maxAttempts: 3, at: clock.now()))
            try await expect(try await retry() == nil, "a live code is no retry")
            _ = try await store.registerAttempt(connection: "email", recipient: "ana@example.com", at: clock.now())
            try await expect(try await store.consumeChallenge(id: "c1", at: clock.now()), "consumed")
            try await store.createUser(Fixture.user(id: "u-ana", at: clock.now()))
            clock.advance(by: 5)
            let first = try await retry()
            try await expect(
                first?.challenge.id == "c1" && first?.challenge.attempts == 2 && first?.consumed == false
                    && first?.user?.id == "u-ana",
                "a retry within the window is counted and brings the user")
            try await expect(try await retry(since: 4) == nil, "consumed before the window: no retry")
            let now = clock.now()
            let spent = [RateLimitCounter(key: "fail:3600:ana", windowStart: now, limit: 1)]
            _ = try await store.hit(key: "fail:3600:ana", windowStart: now)
            try await expect(try await retry(budget: spent) == nil, "a spent failure budget stops it")
            for expected in 3...5 {
                try await expect(try await retry()?.challenge.attempts == expected, "counted up to the cap plus the retries")
            }
            try await expect(try await retry() == nil, "then the retries are used up")
            let newest = try await store.newestChallenge(connection: "email", recipient: "ana@example.com")
            try await expect(newest?.attempts == 5, "nothing counted once refused")
        },
        ConformanceCheck("challenge retries: a newer code ends the retries of the consumed one") { store, clock in
            try await store.createChallenge(Fixture.challenge(id: "old", at: clock.now()))
            try await expect(try await store.consumeChallenge(id: "old", at: clock.now()), "consumed")
            clock.advance(by: 1)
            try await store.createChallenge(Fixture.challenge(id: "new", at: clock.now()))
            let retried = try await store.attemptConsumedChallenge(
                connection: "email", recipient: "ana@example.com", at: clock.now(),
                consumedSince: clock.now().addingTimeInterval(-30), retries: 2, within: [])
            try await expect(retried == nil, "the consumed code was superseded")
            let newest = try await store.newestChallenge(connection: "email", recipient: "ana@example.com")
            try await expect(newest?.id == "new" && newest?.attempts == 0, "and the new one is not counted")
        },
        ConformanceCheck("challenge retries: 50 concurrent retries share the few that are left") { store, clock in
            try await store.createChallenge(Fixture.challenge(id: "c1", maxAttempts: 3, at: clock.now()))
            try await expect(try await store.consumeChallenge(id: "c1", at: clock.now()), "consumed")
            let now = clock.now()
            let results = try await concurrently(50) {
                try await store.attemptConsumedChallenge(
                    connection: "email", recipient: "ana@example.com", at: now, consumedSince: now.addingTimeInterval(-30),
                    retries: 2, within: [])
            }
            let counted = results.compactMap { $0 }.count
            try await expect(counted == 5, "max attempts plus retries, got \(counted)")
        },
    ]
}
