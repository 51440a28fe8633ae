import Foundation

extension PasswordlessLogin {
    /// How long after a code was consumed its exchange may be tried again: the time a login's
    /// later steps may take to fail (the database's deadline) and a client to retry, through a
    /// short database outage.
    static let exchangeRetryWindow: TimeInterval = 30
    /// How long the request that consumed a code (or retries its exchange) works on it alone,
    /// unless it gives the code back sooner by failing: longer than a login's steps take, so two
    /// requests never both complete a login from one code.
    static let exchangeLease: TimeInterval = 10
    /// How many retries a consumed code takes, right or wrong, beyond its own attempts.
    static let exchangeRetries = 3

    /// A code exchange whose login is recorded and answered as one: the code is consumed (or its
    /// lost exchange retried), the login completed, and then the exchange settled: answered, so
    /// the code is spent for good, or given back for the client's retry when a step after the
    /// consumption failed (a database stall, the request's deadline).
    /// - Parameters:
    ///   - challengeID: the challenge the secret must belong to, when the caller knows it (a
    ///     ``LinkRequest``'s link).
    ///   - refusesWhileHeld: a secret another request is still at work on is refused like a
    ///     spent one, instead of the 503 that tells an API client to try again: a browser
    ///     page's double submit has always been answered so (the application told
    ///     `access_denied`, the page that the code is wrong), and a retry after a failure
    ///     still succeeds, since the failed request gives the secret back (or its lease runs out).
    ///   - complete: the login's steps after the consumption, ending in its answer (tokens, a
    ///     browser's next page, the user of an approved link request).
    func exchange<Answer>(
        _ credentials: PasswordlessCredentials, clientID: String, challengeID: String? = nil,
        refusesWhileHeld: Bool = false, complete: (User) async throws -> Answer
    ) async throws -> Answer {
        let (user, challengeID) = try await consumeOrRetry(
            credentials, clientID: clientID, challengeID: challengeID, refusesWhileHeld: refusesWhileHeld)
        let answer: Answer
        do {
            answer = try await complete(user)
            try await storage.settleChallengeExchange(id: challengeID, answered: true, at: clock.now())
        } catch {
            // Best effort: when the database is away this fails too, and the lease runs out.
            try? await storage.settleChallengeExchange(id: challengeID, answered: false, at: clock.now())
            throw error
        }
        return answer
    }

    /// ``consume(_:clientID:challengeID:)`` for a code exchange, which may also be the retry of
    /// an exchange that consumed the code but whose answer was lost. Returns the user to record
    /// and the challenge consumed.
    private func consumeOrRetry(
        _ credentials: PasswordlessCredentials, clientID: String, challengeID: String?, refusesWhileHeld: Bool
    ) async throws -> (User, String) {
        let checked: (Connection, String, ChallengeAttempt)
        do {
            checked = try await check(
                credentials, clientID: clientID, challengeID: challengeID, consume: true,
                exchangeLeaseUntil: clock.now().addingTimeInterval(Self.exchangeLease))
        } catch let refusal as SesameError where refusal.refusal == .wrongCredential {
            let retried: (Connection, String, ChallengeAttempt)?
            do {
                retried = try await retriedExchange(credentials, clientID: clientID)
            } catch let busy as SesameError where busy.kind == .unavailable && refusesWhileHeld {
                throw refusal
            }
            guard let retried, challengeID.map({ $0 == retried.2.challenge.id }) ?? true else { throw refusal }
            checked = retried
        }
        let (connection, recipient, attempt) = checked
        let user = try await candidateUser(
            connection: connection, recipient: recipient, stored: attempt.user, challengeID: attempt.challenge.id)
        return (user, attempt.challenge.id)
    }

    /// The consumer's retry of a code exchange whose answer it never got: the code was
    /// consumed (that step committed), then a later step of the login failed or the request's
    /// deadline fired, and the client saw a 503. Within ``exchangeRetryWindow`` the same
    /// application presenting the same code for the same connection and recipient completes
    /// the login again (for the same user, with fresh tokens, as a rotated refresh token
    /// presented again within the reuse interval does) instead of being told the code it
    /// typed right is wrong. The code was the proof: whoever retries with it within seconds
    /// is the person who typed it. Once a login from the code was answered, the code is spent.
    /// Every retry counts as an attempt on the consumed code and a wrong one spends the
    /// recipient's failure budget, so a consumed code cannot be guessed at more than
    /// ``exchangeRetries`` times, and a newer code ends its retries.
    /// - Returns: what ``check(_:clientID:challengeID:consume:)`` returns for a consuming
    ///   check, or nil when this is no such retry (the caller's refusal stands).
    /// - Throws: 503 when the code is right but another request is still working on it (a
    ///   double submit, or a retry sooner than the first attempt's failure freed it).
    func retriedExchange(_ credentials: PasswordlessCredentials, clientID: String) async throws
        -> (Connection, String, ChallengeAttempt)?
    {
        guard let code = credentials.code, let username = credentials.username, let name = credentials.connection,
            let connection = try await storage.connection(name: name), connection.enabled,
            let recipient = normalize(username, for: connection)
        else { return nil }
        let budget = failureBudget(connection, recipient, ip: credentials.ip)
        let now = clock.now()
        let retry = ChallengeRetry(
            consumedSince: now.addingTimeInterval(-Self.exchangeRetryWindow),
            leaseUntil: now.addingTimeInterval(Self.exchangeLease), leaseOwner: random.hex(16), retries: Self.exchangeRetries,
            acceptance: ChallengeAcceptance(secretHashes: hasher.candidates(code, purpose: .challenge), clientID: clientID))
        guard
            let retried = try await storage.attemptConsumedChallenge(
                connection: connection.name, recipient: recipient, at: now, retry: retry, within: budget.counters(at: now))
        else { return nil }
        let challenge = retried.attempt.challenge
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
        // Only the application that consumed the code.
        guard challenge.clientID == clientID else { return nil }
        guard retried.leased else { throw SesameError.unavailable("code exchange still in progress in another request") }
        return (connection, recipient, retried.attempt)
    }
}
