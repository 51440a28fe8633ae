import Foundation

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
        let window = Int64(rule.windowSeconds)
        let start = (now.epochSeconds / window) * window
        let count = try await storage.hit(key: key, windowStart: Date(timeIntervalSince1970: Double(start)))
        let status = RateLimitStatus(
            limit: rule.limit, remaining: max(0, rule.limit - count), resetEpochSeconds: start + window)
        guard count <= rule.limit else {
            throw SesameError(
                .tooManyRequests, "too_many_requests",
                "Too many requests. Try again after \(status.resetEpochSeconds - now.epochSeconds) seconds.",
                rateLimit: status, logDetail: "rate limit \(key)")
        }
        return status
    }
}
