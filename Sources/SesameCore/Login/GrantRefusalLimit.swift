import Foundation

/// The bound on what refused grants (`/oauth/token`, `/oauth/ro`) may cost: each refusal of an
/// unauthenticated caller is audited, may be sent to webhooks and checks signatures and
/// storage, so a client sending bad assertions or codes as fast as it can would otherwise turn
/// every request into rows and calls (200 a second from one client).
///
/// Only refusals count, per client address, in a counter kept in the database (every
/// instance sees it): a successful login costs nothing. Once an address is over its limit,
/// its grants are answered 429 `too_many_attempts` after one read of the counter, before the
/// client, the signature or anything else is looked at. The per-recipient failure budgets
/// still apply beneath it.
public struct GrantRefusalLimit: Sendable {
    let storage: any RateLimitRepository
    let rule: RateLimitRule
    let clock: any SesameClock

    /// Creates the limit of `rule` over the counters in `storage`.
    public init(storage: any RateLimitRepository, rule: RateLimitRule, clock: any SesameClock) {
        self.storage = storage
        self.rule = rule
        self.clock = clock
    }

    /// Runs `grant` for the client at `ip` unless the address is over its limit, and counts a
    /// refusal when `grant` throws one.
    /// - Throws: 429 `too_many_attempts` when the address is over its limit; else what `grant` throws.
    public func guarding<T: Sendable>(ip: String, _ grant: () async throws -> T) async throws -> T {
        let now = clock.now()
        let window = RateLimiter.window(rule, at: now)
        let key = RateLimiter.key("grant_refusals", ip: ip)
        let counter = RateLimitCounter(key: key, windowStart: window.startDate, limit: rule.limit)
        // A read, not a hit: only refusals spend the budget.
        let refused = try await storage.counts([counter]).first ?? 0
        guard refused < rule.limit else {
            SesameMetrics.rateLimited(key: key)
            throw SesameError(
                .tooManyRequests, .tooManyAttempts,
                "Too many failed attempts from this address. Try again after \(window.end - now.epochSeconds) seconds.",
                rateLimit: RateLimitStatus(limit: rule.limit, remaining: 0, resetEpochSeconds: window.end),
                logDetail: "grant refusals from \(RateLimiter.clientKey(ip))")
        }
        do {
            return try await grant()
        } catch let error as SesameError where Self.isRefusal(error) {
            // The refusal stands whether or not it could be counted.
            _ = try? await storage.hit([counter])
            throw error
        }
    }

    /// Whether `error` refuses the caller (a bad request, client, code, assertion or token), as
    /// opposed to a limit already answering 429 or the server failing.
    static func isRefusal(_ error: SesameError) -> Bool {
        // Asking for a DPoP nonce is the protocol's first step (RFC 9449 §8), not a refusal.
        guard error.code != .useDPoPNonce else { return false }
        return switch error.kind {
        case .badRequest, .unauthorized, .forbidden, .notFound, .conflict, .payloadTooLarge: true
        case .tooManyRequests, .internalError, .unavailable: false
        }
    }
}

extension Sesame {
    /// The per-address limit on refused grants (``LoginSettings/grantRefusalLimitPerIP``).
    public var grantRefusals: GrantRefusalLimit {
        GrantRefusalLimit(storage: storage, rule: settings.grantRefusalLimitPerIP, clock: clock)
    }
}
