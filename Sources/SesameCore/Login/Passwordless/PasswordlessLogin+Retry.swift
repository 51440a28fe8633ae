import Foundation

extension PasswordlessLogin {
    /// How long after a code was consumed its exchange may be tried again: the time a login's
    /// later steps may take to fail (the database's deadline) and a client to retry, through a
    /// short database outage.
    static let exchangeRetryWindow: TimeInterval = 30
    /// How many retries a consumed code takes, right or wrong, beyond its own attempts.
    static let exchangeRetries = 3

    /// The consumer's retry of a code exchange whose answer it never got: the code was
    /// consumed (that step committed), then a later step of the login failed or the request's
    /// deadline fired, and the client saw a 503. Within ``exchangeRetryWindow`` the same
    /// application presenting the same code for the same connection and recipient completes
    /// the login again (for the same user, with fresh tokens, as a rotated refresh token
    /// presented again within the reuse interval does) instead of being told the code it
    /// typed right is wrong. The code was the proof: whoever retries with it within seconds
    /// is the person who typed it. Every retry counts as an attempt on the consumed code
    /// and a wrong one spends the recipient's failure budget, so a consumed code cannot be
    /// guessed at more than ``exchangeRetries`` times, and a newer code ends its retries.
    /// - Returns: what ``check(_:clientID:challengeID:consume:)`` returns for a consuming
    ///   check, or nil when this is no such retry (the caller's refusal stands).
    func retriedExchange(_ credentials: PasswordlessCredentials, clientID: String, challengeID: String?) async throws
        -> (Connection, String, ChallengeAttempt)?
    {
        guard let code = credentials.code, let username = credentials.username, let name = credentials.connection,
            let connection = try await storage.connection(name: name), connection.enabled,
            let recipient = normalize(username, for: connection)
        else { return nil }
        let budget = failureBudget(connection, recipient, ip: credentials.ip)
        let now = clock.now()
        guard
            let attempt = try await storage.attemptConsumedChallenge(
                connection: connection.name, recipient: recipient, at: now,
                consumedSince: now.addingTimeInterval(-Self.exchangeRetryWindow), retries: Self.exchangeRetries,
                within: budget.counters(at: now))
        else { return nil }
        let challenge = attempt.challenge
        guard hasher.matches(code, stored: challenge.secretHash, purpose: .challenge) else {
            await coordinator.audit(
                .otpFailed, ip: credentials.ip, detail: "\(connection.name) attempt \(challenge.attempts) at a used code")
            let exhausted = try await budget.spendReporting(at: clock.now())
            if !exhausted.isEmpty {
                await budgetSpent(
                    exhausted, connection: connection, recipient: recipient, challenge: challenge, ip: credentials.ip)
            }
            return nil
        }
        // Only the application that consumed the code, and for a link only its own challenge.
        guard challenge.clientID == clientID, challengeID == nil || challenge.id == challengeID else { return nil }
        return (connection, recipient, attempt)
    }
}
