public import Foundation

/// The retry of a code exchange whose answer was lost: the code was consumed (its own step
/// committed), then the login's next step failed or the request's deadline fired, so the client
/// saw a 503 and tries the same exchange again.
public protocol ChallengeRetryRepository: Sendable {
    /// Counts one attempt against the recipient's newest challenge when it was consumed at or
    /// after `consumedSince`, while it has had fewer than `maxAttempts + retries` attempts and
    /// no counter of `budget` has reached its limit, in one atomic statement; returns it with
    /// the new count and the recipient's stored user (``ChallengeAttempt/consumed`` is false:
    /// nothing is consumed again). Nil when there is no such challenge (nothing is counted).
    /// The caller compares the secret: every retry, right or wrong, is an attempt, so a
    /// consumed code cannot be guessed at more than `retries` times.
    func attemptConsumedChallenge(
        connection: String, recipient: String, at: Date, consumedSince: Date, retries: Int,
        within budget: [RateLimitCounter]
    ) async throws -> ChallengeAttempt?
}
