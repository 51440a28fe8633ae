import Foundation
import Logging
import SesameAPI

/// Email and SMS one-time codes and magic links: issue a secret, check it, consume it.
///
/// Security invariants (docs/design.md, "Security defaults"): secrets come from the CSPRNG and are stored only as
/// HMACs; only a recipient's newest challenge is live; an attempt is counted before the
/// comparison; consumption is atomic; answers are identical for known and unknown users.
public struct PasswordlessLogin: Sendable, LoginService {
    let context: LoginContext
    let delivery: MessageDelivery
    let outbox: Outbox

    /// A code login, whole: checks and consumes the code, records the login and issues
    /// tokens (`/oauth/token` with the passwordless OTP grant, and `/oauth/ro`).
    /// - Throws: 403 `invalid_grant` with Auth0's exact text for a wrong, expired, used,
    ///   superseded or exhausted code; `user is blocked` for a blocked user.
    public func finish(
        _ credentials: PasswordlessCredentials, request: TokenGrantRequest, method: LoginMethod = .otp, ip: String?
    ) async throws -> TokenResponse {
        try request.application.requireGrant(method == .otpLegacy ? GrantType.legacyPassword : GrantType.passwordlessOTP)
        return try await exchange(credentials.from(ip), clientID: request.application.clientID) { user in
            try await coordinator.completeLogin(user, method: method, request: request, ip: ip)
        }
    }

    /// Checks a presented secret and consumes it: the single-use gate of every passwordless
    /// login. Returns the user to record (the existing one, or a new one on first login).
    /// - Throws: 403 `invalid_grant` with Auth0's exact text for a wrong, expired, used,
    ///   superseded or exhausted secret: the client cannot tell which, by design.
    /// - Parameter challengeID: the challenge the secret must belong to, when the caller knows it
    ///   (a ``LinkRequest``'s link): any other live secret of the recipient fails the same way.
    func consume(_ credentials: PasswordlessCredentials, clientID: String, challengeID: String? = nil) async throws -> User {
        let (connection, recipient, attempt) = try await check(
            credentials, clientID: clientID, challengeID: challengeID, consume: true)
        return try await candidateUser(
            connection: connection, recipient: recipient, stored: attempt.user, challengeID: attempt.challenge.id)
    }

    /// Checks a secret without consuming it (`/passwordless/verify`): a wrong one counts as
    /// a failed attempt, a right one gives its attempt back.
    /// - Parameter clientID: the application asking, required; a code it did not request fails
    ///   like a wrong one and keeps its attempt spent, as in the grant. Without it, any
    ///   application's code would pass, and get its attempt back.
    /// - Throws: 400 `invalid_request` without `clientID`.
    public func verify(_ credentials: PasswordlessCredentials, clientID: String?) async throws {
        guard let clientID else { throw SesameError.invalidRequest("Missing required parameter: client_id") }
        let (_, _, attempt) = try await check(credentials, clientID: clientID)
        try await storage.refundAttempt(challengeID: attempt.challenge.id)
    }

    /// Counts an attempt and checks the secret against the recipient's newest challenge; with
    /// `consume`, a right secret also consumes it in the same storage operation.
    /// - Parameter exchangeLeaseUntil: for a code exchange, until when the consumer holds the code
    ///   (``exchange(_:clientID:challengeID:refusesWhileHeld:complete:)``).
    func check(
        _ credentials: PasswordlessCredentials, clientID: String?, challengeID: String? = nil, consume: Bool = false,
        exchangeLeaseUntil: Date? = nil
    ) async throws -> (Connection, String, ChallengeAttempt) {
        let connection = try await requireConnection(credentials.connection, parameter: "realm")
        guard let username = credentials.username else {
            throw SesameError.invalidRequest("Missing required parameter: username")
        }
        guard let code = credentials.code else { throw SesameError.invalidRequest("Missing required parameter: otp") }
        guard let recipient = normalize(username, for: connection) else { throw wrongCode(connection, detail: "bad username") }
        let budget = failureBudget(connection, recipient, ip: credentials.ip)
        // The attempt is counted in the statement that may consume, and only while the
        // recipient's failure budget lasts: a right guess that loses a race to another finds
        // the challenge consumed, and fails like a wrong one.
        let acceptance = ChallengeAcceptance(
            secretHashes: hasher.candidates(code, purpose: .challenge), clientID: clientID, challengeID: challengeID,
            exchangeLeaseUntil: exchangeLeaseUntil)
        let now = clock.now()
        guard
            let attempt = try await storage.attemptChallenge(
                connection: connection.name, recipient: recipient, at: now, within: budget.counters(at: now),
                consumeIf: consume ? acceptance : nil)
        else {
            try await budget.check(at: now)
            throw try await deadCode(connection, recipient: recipient)
        }
        let challenge = attempt.challenge
        guard hasher.matches(code, stored: challenge.secretHash, purpose: .challenge) else {
            await coordinator.audit(.otpFailed, ip: credentials.ip, detail: "\(connection.name) attempt \(challenge.attempts)")
            let exhausted = try await budget.spendReporting(at: clock.now())
            if !exhausted.isEmpty {
                await budgetSpent(
                    exhausted, connection: connection, recipient: recipient, challenge: challenge, ip: credentials.ip)
            }
            let wrong = wrongCode(connection, detail: "code mismatch")
            throw challenge.attempts >= challenge.maxAttempts ? wrong.because(CodeFault.attemptsExhausted) : wrong
        }
        // A code is redeemable only by the application that asked for it: a low-trust app must
        // not redeem a code mailed as "Sign in to Trusted App".
        if let clientID, challenge.clientID != clientID {
            await coordinator.audit(.otpFailed, client: clientID, detail: "\(connection.name) code of another application")
            throw wrongCode(connection, detail: "code requested by \(challenge.clientID)")
        }
        if let challengeID, challenge.id != challengeID {
            throw wrongCode(connection, detail: "secret of another challenge than \(challengeID)")
        }
        if consume && !attempt.consumed { throw wrongCode(connection, detail: "challenge already consumed") }
        return (connection, recipient, attempt)
    }

    /// The user to record: `stored` (the attempt read it while consuming), or a new one.
    func candidateUser(
        connection: Connection, recipient: String, stored: User?, challengeID: String
    ) async throws -> User {
        guard let existing = stored else {
            let now = clock.now()
            return User.newPasswordless(id: random.orderedHex(at: now), connection: connection, identifier: recipient, at: now)
        }
        let verified = connection.strategy == .email ? existing.emailVerified : existing.phoneVerified
        return verified ? existing : try await verifyAddress(of: existing, on: connection, challengeID: challengeID)
    }

    /// The first code or link used for an address that signed up with a passkey proves the
    /// address. Everything made before that dies, in one storage operation: passkeys, device
    /// keys, refresh-token families, authorization codes not yet exchanged, link requests,
    /// passkey ceremonies, browser sessions and every token issued so far, and the profile
    /// fields anyone could have set; whoever made them never proved they own the address
    /// (account pre-hijacking: sign up with a victim's email first, then keep a way in after
    /// the victim starts using the account).
    /// - Parameter challengeID: the challenge this proof consumed; its own link request lives on.
    private func verifyAddress(of user: User, on connection: Connection, challengeID: String) async throws -> User {
        let now = clock.now()
        let outcome = try await storage.verifyAddress(userID: user.id, keepingChallenge: challengeID, at: now) {
            $0.proveAddress(on: connection, at: now)
        }
        await coordinator.audit(
            .addressVerified, user: outcome.user.userID,
            detail: "\(connection.name): removed \(outcome.passkeys) passkey(s) and \(outcome.deviceKeys) device key(s), "
                + "ended \(outcome.authorizationCodes) authorization code(s), \(outcome.linkRequests) link request(s), "
                + "\(outcome.passkeySessions) passkey ceremony(ies) and \(outcome.browserSessions) browser session(s), "
                + "and revoked every token issued before verification")
        return outcome.user
    }

    /// The answer when the recipient has no live code. The description stays Auth0's (SDKs
    /// match its text); `error_reason` tells an app to offer a new code when the newest one
    /// ran out of time or guesses. A code is stored for every start, known address or not,
    /// so this says nothing about accounts; a used or superseded code gets no reason.
    private func deadCode(_ connection: Connection, recipient: String) async throws -> SesameError {
        let wrong = wrongCode(connection, detail: "no live challenge")
        guard let newest = try await storage.newestChallenge(connection: connection.name, recipient: recipient),
            newest.consumedAt == nil
        else { return wrong }
        if newest.attempts >= newest.maxAttempts { return wrong.because(CodeFault.attemptsExhausted) }
        return newest.expiresAt <= clock.now() ? wrong.because(CodeFault.expired) : wrong
    }

    /// Whether a refused code is one a newer code replaced ("Send a new code", a second tab, a
    /// double submit): the hosted page then says so, instead of calling it a typo. The
    /// Authentication API does not ask (Auth0 gives a superseded code no reason).
    func isSuperseded(_ credentials: PasswordlessCredentials) async throws -> Bool {
        guard let code = credentials.code, let name = credentials.connection,
            let connection = try await storage.connection(name: name),
            let recipient = credentials.username.flatMap({ normalize($0, for: connection) })
        else { return false }
        return try await storage.isSuperseded(
            connection: connection.name, recipient: recipient, secretHashes: hasher.candidates(code, purpose: .challenge))
    }

    func wrongCode(_ connection: Connection, detail: String) -> SesameError {
        let noun = connection.strategy == .email ? "email" : "phone number"
        return .invalidGrant("Wrong \(noun) or verification code.", logDetail: detail)
    }

    func normalize(_ identifier: String, for connection: Connection) -> String? {
        connection.strategy == .email ? Identifier.normalizedEmail(identifier) : Identifier.normalizedPhone(identifier)
    }

    func requireConnection(_ name: String?, parameter: String) async throws -> Connection {
        guard let name else { throw SesameError.invalidRequest("Missing required parameter: \(parameter)") }
        guard let connection = try await storage.connection(name: name), connection.enabled else {
            throw SesameError.invalidRequest("The connection '\(name)' does not exist or is disabled.")
        }
        return connection
    }
}
