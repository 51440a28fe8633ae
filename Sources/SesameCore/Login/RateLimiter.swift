public import Foundation

/// Applies fixed-window limits whose counters live in the database, so every instance
/// sees the same counts.
public struct RateLimiter: Sendable {
    private let storage: any RateLimitRepository

    /// Creates a limiter over `storage`.
    public init(storage: any RateLimitRepository) {
        self.storage = storage
    }

    /// Counts one hit for `key` under `rule`.
    /// - Returns: the counter's state after the hit.
    /// - Throws: a 429 ``SesameError`` carrying the state when the limit is exceeded.
    @discardableResult
    public func hit(_ key: String, rule: RateLimitRule, at now: Date) async throws -> RateLimitStatus {
        try await hit([(key, rule)], at: now)[0]
    }

    /// The 429 for `key`, counted in the metrics.
    private func exceeded(
        _ key: String, _ status: RateLimitStatus, _ window: (start: Int64, end: Int64, startDate: Date), _ now: Date
    ) -> SesameError {
        SesameMetrics.rateLimited(key: key)
        return SesameError(
            .tooManyRequests, .tooManyRequests, "Too many requests. Try again after \(window.end - now.epochSeconds) seconds.",
            rateLimit: status, logDetail: "rate limit \(key)")
    }

    /// Counts one hit for each of `limits` in order, in one storage operation; the first limit
    /// exceeded stops the series (later counters are not hit) and is thrown.
    /// - Returns: each counter's state after the hit.
    @discardableResult
    public func hit(_ limits: [(key: String, rule: RateLimitRule)], at now: Date) async throws -> [RateLimitStatus] {
        let windows = limits.map { Self.window($0.rule, at: now) }
        let counts = try await storage.hit(
            zip(limits, windows).map { RateLimitCounter(key: $0.key, windowStart: $1.startDate, limit: $0.rule.limit) })
        var statuses: [RateLimitStatus] = []
        for (index, count) in counts.enumerated() {
            let (limit, window) = (limits[index], windows[index])
            let status = RateLimitStatus(
                limit: limit.rule.limit, remaining: max(0, limit.rule.limit - count), resetEpochSeconds: window.end)
            guard count <= limit.rule.limit else { throw exceeded(limit.key, status, window, now) }
            statuses.append(status)
        }
        return statuses
    }

    /// Counts one hit for the client at `ip` under `rule`: `scope` names what is limited.
    @discardableResult
    public func hit(_ scope: String, ip: String, rule: RateLimitRule, at now: Date) async throws -> RateLimitStatus {
        try await hit(Self.key(scope, ip: ip), rule: rule, at: now)
    }

    /// The counter key of `scope` for the client at `ip`.
    public static func key(_ scope: String, ip: String) -> String {
        "\(scope):ip:\(clientKey(ip))"
    }

    /// The counter key of a client address: an IPv6 client is counted per /64, because one
    /// subscriber usually holds a whole /64 and could otherwise rotate addresses freely.
    public static func clientKey(_ ip: String) -> String {
        IPAddress(ip)?.clientKey ?? ip
    }

    /// The fixed window of `rule` that contains `now`: start and end in whole seconds.
    static func window(_ rule: RateLimitRule, at now: Date) -> (start: Int64, end: Int64, startDate: Date) {
        let length = Int64(rule.windowSeconds)
        let start = (now.epochSeconds / length) * length
        return (start, start + length, Date(timeIntervalSince1970: Double(start)))
    }
}
