import Foundation

/// A recipient's budget of wrong codes, across all of its codes: three tries per code and a
/// new code every few minutes would otherwise allow about 1,400 guesses a day per address.
/// Each rule is a window (say 10 per hour, 30 per day); once any is spent, every attempt for
/// the recipient is refused until that window ends, so the wait grows from an hour to a day.
/// The counters live in the database, so the budget holds across instances.
struct FailureBudget: Sendable {
    let storage: any RateLimitRepository
    let rules: [RateLimitRule]
    /// `connection:recipient`.
    let key: String

    /// The budget's counters in their windows at `now`: an attempt is allowed while each is
    /// under its limit.
    func counters(at now: Date) -> [RateLimitCounter] {
        rules.map { RateLimitCounter(key: counter($0), windowStart: RateLimiter.window($0, at: now).startDate, limit: $0.limit) }
    }

    /// Refuses with 429 `too_many_attempts` while a window's budget is spent.
    func check(at now: Date) async throws {
        let windows = rules.map { RateLimiter.window($0, at: now) }
        let spent = try await storage.counts(counters(at: now))
        for (index, rule) in rules.enumerated() {
            let window = windows[index]
            guard spent[index] >= rule.limit else { continue }
            throw SesameError(
                .tooManyRequests, .tooManyAttempts,
                "Too many wrong codes for this address. Try again after \(window.end - now.epochSeconds) seconds.",
                rateLimit: RateLimitStatus(limit: rule.limit, remaining: 0, resetEpochSeconds: window.end),
                logDetail: "failure budget \(key)")
        }
    }

    /// Spends one failure.
    /// - Returns: true when this failure used up a window's budget (worth an audit event).
    func spend(at now: Date) async throws -> Bool {
        var exhausted = false
        for rule in rules {
            let count = try await storage.hit(key: counter(rule), windowStart: RateLimiter.window(rule, at: now).startDate)
            exhausted = exhausted || count == rule.limit
        }
        return exhausted
    }

    private func counter(_ rule: RateLimitRule) -> String { "fail:\(rule.windowSeconds):\(key)" }
}
