import Foundation

/// A recipient's budget of wrong codes, across all of its codes: three tries per code and a
/// new code every few minutes would otherwise allow about 1,400 guesses a day per address.
///
/// The budget is kept per source (the recipient and the client address that guesses), under a
/// much higher ceiling for the recipient from all sources. A stranger who spends their own
/// budget (say 10 an hour, 30 a day) is refused until its window ends, but the person, who
/// guesses from another address, is not: one source cannot lock another out. The ceiling
/// still bounds guesses spread over many addresses (a botnet), so a code stays unguessable.
/// The counters live in the database, so the budget holds across instances.
struct FailureBudget: Sendable {
    /// Which part of the budget an exhausting failure used up.
    struct Exhaustion: OptionSet, Sendable {
        let rawValue: Int
        /// The guessing source's own budget for this recipient.
        static let source = Exhaustion(rawValue: 1)
        /// The recipient's ceiling across all sources.
        static let ceiling = Exhaustion(rawValue: 2)
    }

    let storage: any RateLimitRepository
    /// Windows of wrong codes one source may make for the recipient.
    let rules: [RateLimitRule]
    /// Windows of wrong codes all sources together may make for the recipient.
    let ceiling: [RateLimitRule]
    /// `connection:recipient`.
    let key: String
    /// The guessing client's counter key (``RateLimiter/clientKey(_:)``), `unknown` without one.
    let source: String

    init(storage: any RateLimitRepository, rules: [RateLimitRule], ceiling: [RateLimitRule], key: String, ip: String?) {
        self.storage = storage
        self.rules = rules
        self.ceiling = ceiling
        self.key = key
        self.source = ip.map(RateLimiter.clientKey) ?? "unknown"
    }

    /// Every rule with its counter: the source's first, then the ceiling's.
    private var limits: [(rule: RateLimitRule, counter: String)] {
        rules.map { ($0, "fail:\($0.windowSeconds):\(key):ip:\(source)") }
            + ceiling.map { ($0, "fail:\($0.windowSeconds):\(key)") }
    }

    /// The budget's counters in their windows at `now`: an attempt is allowed while each is
    /// under its limit.
    func counters(at now: Date) -> [RateLimitCounter] {
        limits.map {
            RateLimitCounter(key: $0.counter, windowStart: RateLimiter.window($0.rule, at: now).startDate, limit: $0.rule.limit)
        }
    }

    /// Refuses with 429 `too_many_attempts` while a window's budget is spent.
    func check(at now: Date) async throws {
        let spent = try await storage.counts(counters(at: now))
        for (index, (rule, _)) in limits.enumerated() where spent[index] >= rule.limit {
            let window = RateLimiter.window(rule, at: now)
            throw SesameError(
                .tooManyRequests, .tooManyAttempts,
                "Too many wrong codes for this address. Try again after \(window.end - now.epochSeconds) seconds.",
                rateLimit: RateLimitStatus(limit: rule.limit, remaining: 0, resetEpochSeconds: window.end),
                logDetail: "failure budget \(key)" + (index < rules.count ? " from \(source)" : " (all sources)"))
        }
    }

    /// A budget of the recipient alone (`rules` as its ceiling, from every source together).
    init(storage: any RateLimitRepository, rules: [RateLimitRule], key: String) {
        self.init(storage: storage, rules: [], ceiling: rules, key: key, ip: nil)
    }

    /// Spends one failure.
    /// - Returns: true when this failure used up a window's budget (worth an audit event).
    func spend(at now: Date) async throws -> Bool {
        try await !spendReporting(at: now).isEmpty
    }

    /// Spends one failure.
    /// - Returns: the parts of the budget this failure used up (each worth an audit event).
    func spendReporting(at now: Date) async throws -> Exhaustion {
        var exhausted: Exhaustion = []
        for (index, (rule, counter)) in limits.enumerated() {
            let count = try await storage.hit(key: counter, windowStart: RateLimiter.window(rule, at: now).startDate)
            if count == rule.limit { exhausted.insert(index < rules.count ? .source : .ceiling) }
        }
        return exhausted
    }
}
