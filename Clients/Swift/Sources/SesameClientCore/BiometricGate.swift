public import Foundation

/// Asks the person before tokens are handed out, as its ``BiometricPolicy`` says: one prompt
/// for callers that ask together, none again within ``BiometricPolicy/reuseDuration``, and
/// closed (an error, never the tokens) whenever biometry is missing, changed or refused.
public actor BiometricGate {
    /// What is asked, and how.
    public let policy: BiometricPolicy
    private let authenticator: any BiometricAuthenticator
    private let now: @Sendable () -> Date
    private var prompt: Task<Void, any Error>?
    private var confirmedAt: Date?
    /// Callers waiting on the prompt another caller started (tests wait for theirs to arrive).
    private(set) var joinedPrompt = 0

    /// A gate asking through `authenticator`; `now` is the clock the reuse window reads.
    public init(
        policy: BiometricPolicy, authenticator: any BiometricAuthenticator, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.policy = policy
        self.authenticator = authenticator
        self.now = now
    }

    /// Returns when the person is confirmed: now, or within the reuse window.
    /// - Throws: ``SesameClientError`` with ``SesameClientError/biometricFailure``.
    public func authorize() async throws {
        if isWithinReuseWindow { return }
        if let prompt {
            joinedPrompt += 1
            defer { joinedPrompt -= 1 }
            return try await prompt.value
        }
        if let failure = authenticator.unavailability(of: policy.evaluation) { throw SesameClientError.biometric(failure) }
        let (authenticator, policy) = (self.authenticator, self.policy)
        let task = Task {
            do {
                try await authenticator.evaluate(policy)
            } catch let failure as BiometricFailure {
                throw SesameClientError.biometric(failure)
            }
        }
        prompt = task
        defer { prompt = nil }
        try await task.value
        confirmedAt = now()
    }

    /// Forgets the last success: the next request asks again (after a sign-out, or when the
    /// app goes to the background).
    public func invalidate() {
        confirmedAt = nil
        authenticator.invalidate()
    }

    /// A success recent enough. A clock set back before the success does not count: moving
    /// the device's clock must not stretch the window.
    private var isWithinReuseWindow: Bool {
        guard let confirmedAt, policy.reuseDuration > 0 else { return false }
        let elapsed = now().timeIntervalSince(confirmedAt)
        return elapsed >= 0 && elapsed < policy.reuseDuration
    }
}
