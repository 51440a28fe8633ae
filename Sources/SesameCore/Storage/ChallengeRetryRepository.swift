public import Foundation

/// The retry of a code exchange whose answer was lost: the code was consumed (its own step
/// committed), then the login's next step failed or the request's deadline fired, so the client
/// saw a 503 and tries the same exchange again. Exactly one request at a time works on a
/// consumed code (it holds the code's lease), and none once its login was answered.
public protocol ChallengeRetryRepository: Sendable {
    /// Counts one attempt against the recipient's newest challenge when it was consumed at or
    /// after `retry.consumedSince` and its exchange was not settled as answered, while it has
    /// had fewer than `maxAttempts + retry.retries` attempts and no counter of `budget` has
    /// reached its limit, in one atomic statement. Only a code consumed by an exchange (with
    /// ``ChallengeAcceptance/exchangeLeaseUntil``) has retries. When the stored secret meets
    /// `retry.acceptance` and no request holds the code's lease (its consumer's until it
    /// settles or the lease runs out, then each retry's until `retry.leaseUntil`), this attempt
    /// takes it as `retry.leaseOwner`. Nil when there is no such challenge (nothing is counted).
    func attemptConsumedChallenge(
        connection: String, recipient: String, at: Date, retry: ChallengeRetry, within budget: [RateLimitCounter]
    ) async throws -> ConsumedChallengeAttempt?

    /// Settles the exchange of a consumed challenge: `answered`, its login was answered and the
    /// code is spent for good; otherwise its lease is released at `at`, so the client's retry
    /// need not wait for it to run out.
    func settleChallengeExchange(id: String, answered: Bool, at: Date) async throws
}

/// What may retry a consumed code's exchange, and the lease a retry takes.
public struct ChallengeRetry: Sendable {
    /// The earliest consumption a retry may follow.
    public var consumedSince: Date
    /// Until when a retry that takes the lease holds it.
    public var leaseUntil: Date
    /// Who takes the lease: unique to this attempt, so it can tell it took the lease.
    public var leaseOwner: String
    /// How many attempts a consumed code takes beyond its own.
    public var retries: Int
    /// The presented secret and the application that must have consumed it.
    public var acceptance: ChallengeAcceptance

    /// Creates the conditions of a retry.
    public init(consumedSince: Date, leaseUntil: Date, leaseOwner: String, retries: Int, acceptance: ChallengeAcceptance) {
        self.consumedSince = consumedSince
        self.leaseUntil = leaseUntil
        self.leaseOwner = leaseOwner
        self.retries = retries
        self.acceptance = acceptance
    }
}

/// A counted attempt at a consumed challenge.
public struct ConsumedChallengeAttempt: Sendable {
    /// The challenge with its new count, and the recipient's stored user.
    public var attempt: ChallengeAttempt
    /// True when this attempt took the code's lease: it may complete the login.
    public var leased: Bool

    /// Creates an attempt's outcome.
    public init(attempt: ChallengeAttempt, leased: Bool) {
        self.attempt = attempt
        self.leased = leased
    }
}
