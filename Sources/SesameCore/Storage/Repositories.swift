public import Foundation

/// Users, looked up by id or by (connection, identifier).
public protocol UserRepository: Sendable {
    /// Stores a new user; throws `.alreadyExists` when the identifier is taken on that connection.
    func createUser(_ user: User) async throws
    /// The user with this id, or nil.
    func user(id: String) async throws -> User?
    /// The user with this normalised identifier on this connection, or nil.
    func user(connection: String, identifier: String) async throws -> User?
    /// Users ordered by creation, newest first.
    func listUsers(limit: Int, offset: Int) async throws -> [User]
    /// Users `search` matches, newest first, a page at a time.
    func searchUsers(_ search: UserSearch) async throws -> [User]
    /// How many users `search` matches in all.
    func countUsers(_ search: UserSearch) async throws -> Int
    /// Applies `transform` to the stored user and saves it; throws `.notFound`.
    func updateUser(id: String, _ transform: @escaping @Sendable (inout User) throws -> Void) async throws -> User
    /// Deletes a user and revokes their refresh tokens at `at`, in one transaction; throws `.notFound`.
    func deleteUser(id: String, at: Date) async throws
    /// Sets whether a user is blocked; blocking also revokes their refresh tokens and sets
    /// `tokensValidAfter` to `at`, in the same transaction, so a blocked user never keeps a
    /// live token, and an unblock revives none issued before the block. Throws `.notFound`.
    func setUserBlocked(id: String, _ blocked: Bool, at: Date) async throws -> User
    /// The first proof of the user's address, in one transaction: applies `transform` to the
    /// stored user and saves it, and ends what anyone could have made while the address was
    /// unproven: passkeys created up to `at`, device keys, refresh tokens (revoked at `at`),
    /// authorization codes not yet exchanged, link requests of the address still pending or
    /// approved (refused at `at`, except the one of challenge `keepingChallenge`, which this
    /// very proof answers), live passkey ceremonies of the user or of a signup for the address,
    /// and browser sessions. Throws `.notFound`.
    func verifyAddress(
        userID id: String, keepingChallenge challengeID: String?, at: Date,
        _ transform: @escaping @Sendable (inout User) throws -> Void
    ) async throws -> AddressVerification
    /// Records a successful login in one atomic step: creates `newUser` if no user has its
    /// (connection, identifier), otherwise bumps the existing user's count. Two concurrent
    /// first logins therefore create one user.
    func recordLogin(_ newUser: User, at: Date) async throws -> User
    /// ``recordLogin(_:at:)``, and the audit events `audit` makes of the recorded user
    /// appended in the same transaction.
    func recordLogin(_ newUser: User, at: Date, audit: @escaping @Sendable (User) -> [AuditEvent]) async throws -> User
    /// ``recordLogin(_:at:)``, and the events `audit` holds for its outcome appended in the
    /// same transaction; a backend may write both in one statement.
    func recordLogin(_ newUser: User, at: Date, audit: LoginAudit) async throws -> User
}

extension UserRepository {
    /// Writes the events through the form of `recordLogin` that takes a function of the
    /// stored user: the same transaction, the list chosen in Swift.
    public func recordLogin(_ newUser: User, at: Date, audit: LoginAudit) async throws -> User {
        try await recordLogin(newUser, at: at) { audit.events(for: $0) }
    }
}

/// OAuth clients.
public protocol ApplicationRepository: Sendable {
    /// Stores a new application; throws `.alreadyExists` on a duplicate client id.
    func createApplication(_ application: Application) async throws
    /// The application with this client id, or nil.
    func application(clientID: String) async throws -> Application?
    /// All applications, oldest first.
    func listApplications() async throws -> [Application]
    /// Applies `transform` and saves; throws `.notFound`.
    func updateApplication(
        clientID: String, _ transform: @escaping @Sendable (inout Application) throws -> Void
    ) async throws -> Application
    /// Deletes an application and its client grants, in one transaction; throws `.notFound`.
    func deleteApplication(clientID: String) async throws
}

/// Passwordless connections.
public protocol ConnectionRepository: Sendable {
    /// Stores a connection, replacing one of the same name.
    func saveConnection(_ connection: Connection) async throws
    /// The connection with this name, or nil.
    func connection(name: String) async throws -> Connection?
    /// All connections by name.
    func listConnections() async throws -> [Connection]
}

/// One-time codes and magic links. The three operations below are the single-use gate and
/// must be atomic against concurrent callers, on one instance or many.
public protocol ChallengeRepository: Sendable {
    /// Stores a challenge. It becomes the recipient's newest, so older ones stop working.
    func createChallenge(_ challenge: Challenge) async throws
    /// The recipient's newest challenge in any state (live, expired, consumed, used up), to
    /// tell a client why a code failed after ``attemptChallenge(connection:recipient:at:within:consumeIf:)``
    /// found none live.
    func newestChallenge(connection: String, recipient: String) async throws -> Challenge?
    /// Whether a challenge of the recipient whose stored hash is one of `secretHashes` was
    /// retired by a newer one (``createChallenge(_:)``), not used or left to expire: a code
    /// from before "Send a new code" (or a second tab, a double submit). Nothing is counted.
    func isSuperseded(connection: String, recipient: String, secretHashes: [[UInt8]]) async throws -> Bool
    /// Gives back one attempt (a correct check that did not consume the code).
    func refundAttempt(challengeID: String) async throws
    /// Marks a challenge consumed. True for exactly one of any number of concurrent callers.
    func consumeChallenge(id: String, at: Date) async throws -> Bool
    /// Deletes challenges that expired before `date`; returns how many.
    func deleteExpiredChallenges(before date: Date) async throws -> Int
    /// Counts one attempt against the recipient's newest live challenge and, when it meets
    /// `acceptance`, consumes it, in one atomic statement (a login's code check is one
    /// round trip): of any number of concurrent attempts that meet it, exactly one consumes.
    /// The attempt is counted whether or not it consumes. Nil when no live challenge was there
    /// to count against, or when a counter of `budget` has reached its limit in its window
    /// (nothing is counted then). With no `acceptance`, nothing is consumed. An attempt that
    /// consumes comes back with the recipient's stored user (``ChallengeAttempt/user``).
    func attemptChallenge(
        connection: String, recipient: String, at: Date, within budget: [RateLimitCounter],
        consumeIf acceptance: ChallengeAcceptance?
    ) async throws -> ChallengeAttempt?
}

extension ChallengeRepository {
    /// Counts one attempt against the recipient's newest challenge, consuming nothing, and
    /// returns it with the new count. Nil when that challenge is expired, consumed or already
    /// at its attempt cap (nothing is counted then).
    public func registerAttempt(connection: String, recipient: String, at: Date) async throws -> Challenge? {
        try await attemptChallenge(connection: connection, recipient: recipient, at: at, within: [], consumeIf: nil)?.challenge
    }
}

/// What consumes a challenge in ``ChallengeRepository/attemptChallenge(connection:recipient:at:within:consumeIf:)``:
/// its stored hash is one of `secretHashes` (the presented secret under every server key), and,
/// when given, it was issued to `clientID` and is the challenge `challengeID`.
public struct ChallengeAcceptance: Sendable {
    /// The presented secret's HMACs, one per server key.
    public var secretHashes: [[UInt8]]
    /// The application the challenge must have been issued to; nil: any.
    public var clientID: String?
    /// The challenge it must be; nil: the recipient's newest, whichever it is.
    public var challengeID: String?
    /// For a code exchange: until when its consumer works on the code alone. Only a code
    /// consumed so may have its exchange retried
    /// (``ChallengeRetryRepository/attemptConsumedChallenge(connection:recipient:at:retry:within:)``);
    /// nil for the other consumptions (a magic link, a refused link request), whose code is spent.
    public var exchangeLeaseUntil: Date?

    /// Creates the conditions of a consumption.
    public init(
        secretHashes: [[UInt8]], clientID: String? = nil, challengeID: String? = nil, exchangeLeaseUntil: Date? = nil
    ) {
        self.secretHashes = secretHashes
        self.clientID = clientID
        self.challengeID = challengeID
        self.exchangeLeaseUntil = exchangeLeaseUntil
    }
}

/// A counted attempt: the challenge with its new count, and whether this attempt consumed it.
public struct ChallengeAttempt: Sendable {
    /// The challenge after the attempt was counted.
    public var challenge: Challenge
    /// True when `accept` approved it and this caller won the consumption.
    public var consumed: Bool
    /// When it consumed: the stored user of the challenge's connection and recipient, read in
    /// the same operation (nil when there is none), so a login needs no read of its own.
    public var user: User?

    /// Creates an attempt's outcome.
    public init(challenge: Challenge, consumed: Bool, user: User? = nil) {
        self.challenge = challenge
        self.consumed = consumed
        self.user = user
    }
}

/// Authorization codes and refresh tokens.
public protocol GrantRepository: Sendable {
    /// Stores an authorization code.
    func createAuthorizationCode(_ code: AuthorizationCode) async throws
    /// Consumes the live code with one of these hashes: returns it for exactly one caller.
    /// `familyID` is recorded on the consumed code: the login its exchange starts.
    func consumeAuthorizationCode(hashes: [[UInt8]], at: Date, familyID: String?) async throws -> AuthorizationCode?
    /// A code with one of these hashes presented again after it was consumed (RFC 6749
    /// §4.1.2): revokes the refresh-token family recorded on it, and records the family as
    /// revoked until `until` even when it holds no refresh token, so the access tokens that name
    /// it die too; in one transaction. Returns the family, nil when no consumed, unexpired code
    /// with a recorded family has these hashes.
    func revokeReplayedAuthorizationCode(hashes: [[UInt8]], at: Date, until: Date) async throws -> String?
    /// Stores a refresh token.
    func createRefreshToken(_ token: RefreshToken) async throws
    /// Rotates the live token of `clientID` with one of these hashes into the token that
    /// `replacement` builds from it (same family), atomically. A second presentation of a
    /// rotated or revoked token revokes the whole family, except once within `reuseInterval`
    /// seconds of the rotation while the replacement (found by the hash `replacement` gives)
    /// is still unused: that is ``RefreshRotation/retried(previous:)``. Only a token `key`
    /// allows is considered: the DPoP binding is checked in the rotation's own statements
    /// rather than by a read before it.
    ///
    /// The token's stored user is read in the same transaction when the rotation spent or
    /// retried it (nil when the user no longer exists, or for any other outcome): the grant's new
    /// id_token needs it, and the rotation is a transaction already.
    func rotateRefreshTokenReadingUser(
        hashes: [[UInt8]], clientID: String, at: Date, reuseInterval: TimeInterval, key: RefreshKeyRequirement,
        replacement: @escaping @Sendable (RefreshToken) -> RefreshToken
    ) async throws -> (RefreshRotation, User?)
    /// Whether the family has been revoked (logout, reuse, block); its access tokens then die too.
    func isRefreshFamilyRevoked(_ familyID: String) async throws -> Bool
    /// Revokes the family of the token with one of these hashes; true if one was found.
    func revokeRefreshToken(hashes: [[UInt8]], clientID: String, at: Date) async throws -> Bool
    /// Revokes every refresh token of a user (blocking, deletion).
    func revokeRefreshTokens(userID: String, at: Date) async throws
    /// The current token of each of the user's live families (neither rotated, revoked nor
    /// expired at `at`), newest first.
    func liveRefreshTokens(userID: String, at: Date) async throws -> [RefreshToken]
    /// The current token of the family `familyID` when it is live at `at`, or nil.
    func liveRefreshToken(familyID: String, at: Date) async throws -> RefreshToken?
    /// Revokes the family (its access tokens die with it); true when it held a token not yet revoked.
    func revokeRefreshFamily(_ familyID: String, at: Date) async throws -> Bool
}

extension GrantRepository {
    /// Consumes a code without recording the login its exchange starts.
    public func consumeAuthorizationCode(hashes: [[UInt8]], at: Date) async throws -> AuthorizationCode? {
        try await consumeAuthorizationCode(hashes: hashes, at: at, familyID: nil)
    }

    /// Rotation of any token, bound or not, without a reuse interval: any second presentation
    /// revokes the family.
    public func rotateRefreshToken(
        hashes: [[UInt8]], clientID: String, at: Date, replacement: @escaping @Sendable (RefreshToken) -> RefreshToken
    ) async throws -> RefreshRotation {
        try await rotateRefreshToken(hashes: hashes, clientID: clientID, at: at, reuseInterval: 0, replacement: replacement)
    }

    /// ``rotateRefreshTokenReadingUser(hashes:clientID:at:reuseInterval:key:replacement:)``
    /// without the user.
    public func rotateRefreshToken(
        hashes: [[UInt8]], clientID: String, at: Date, reuseInterval: TimeInterval, key: RefreshKeyRequirement,
        replacement: @escaping @Sendable (RefreshToken) -> RefreshToken
    ) async throws -> RefreshRotation {
        try await rotateRefreshTokenReadingUser(
            hashes: hashes, clientID: clientID, at: at, reuseInterval: reuseInterval, key: key, replacement: replacement
        ).0
    }

    /// Rotation of any token, bound or not (``RefreshKeyRequirement/any``).
    public func rotateRefreshToken(
        hashes: [[UInt8]], clientID: String, at: Date, reuseInterval: TimeInterval,
        replacement: @escaping @Sendable (RefreshToken) -> RefreshToken
    ) async throws -> RefreshRotation {
        try await rotateRefreshToken(
            hashes: hashes, clientID: clientID, at: at, reuseInterval: reuseInterval, key: .any, replacement: replacement)
    }
}

/// Signing keys and HMAC secrets, shared by every instance through the database.
public protocol KeyRepository: Sendable {
    /// Signing keys, retired ones included, the latest to start signing first.
    func signingKeys() async throws -> [SigningKeyRecord]
    /// Stores a signing key.
    func addSigningKey(_ key: SigningKeyRecord) async throws
    /// Withdraws a signing key; false when no key has this `kid` or it was already retired.
    func retireSigningKey(kid: String, at: Date) async throws -> Bool
    /// HMAC secrets, newest first.
    func hmacSecrets() async throws -> [[UInt8]]
    /// Stores an HMAC secret.
    func addHMACSecret(_ secret: [UInt8], at: Date) async throws
    /// HMAC keys with their activation, the latest to start hashing first.
    func hmacKeys() async throws -> [HMACKeyRecord]
    /// Stores an HMAC key that starts hashing at its `activeFrom`.
    func addHMACKey(_ key: HMACKeyRecord) async throws
    /// Runs `body` while no other instance sharing this database runs its own first-start
    /// setup, so instances that start together on an empty database create one key, one
    /// secret and one default application.
    func withSetupLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
}

/// Fixed-window counters kept in the database, so limits hold across instances.
public protocol RateLimitRepository: Sendable {
    /// Adds one hit to `key` in the window starting at `windowStart` and returns the count
    /// in that window, this hit included. A new window starts the count afresh.
    func hit(key: String, windowStart: Date) async throws -> Int
    /// ``hit(key:windowStart:)`` for each counter in order, in one storage operation,
    /// stopping after the first whose count passes its limit (later ones are not counted).
    /// Returns the counts of the counters hit.
    func hit(_ counters: [RateLimitCounter]) async throws -> [Int]
    /// The count of each counter in its window, without adding a hit (its `limit` is not
    /// used), in one read.
    func counts(_ counters: [RateLimitCounter]) async throws -> [Int]
}

extension RateLimitRepository {
    /// The count of `key` in the window starting at `windowStart`, without adding a hit.
    public func count(key: String, windowStart: Date) async throws -> Int {
        try await counts([RateLimitCounter(key: key, windowStart: windowStart, limit: 0)]).first ?? 0
    }
}

/// One fixed-window counter to add a hit to, with the limit that stops a series of hits.
public struct RateLimitCounter: Sendable {
    public var key: String
    public var windowStart: Date
    public var limit: Int

    /// Creates a counter.
    public init(key: String, windowStart: Date, limit: Int) {
        self.key = key
        self.windowStart = windowStart
        self.limit = limit
    }
}

/// Removal of what has expired, so unauthenticated writes cannot grow the database without
/// bound. Safe to run from every instance at once: each statement only deletes rows that
/// are already dead.
public protocol SweepRepository: Sendable {
    /// Deletes challenges, link requests, passkey sessions, authorization codes, device
    /// assertion ids and nonces expired before `now`, refresh tokens expired before `now` minus a day, rate-limit
    /// windows that started before `windowsBefore`, console outbox messages created before
    /// `outboxBefore`, and deliveries (of any status) created before `deliveriesBefore`;
    /// returns how many rows of each kind went.
    func sweep(now: Date, windowsBefore: Date, outboxBefore: Date, deliveriesBefore: Date) async throws -> SweepCounts
}

extension SweepRepository {
    /// A sweep that keeps deliveries as long as console outbox messages.
    public func sweep(now: Date, windowsBefore: Date, outboxBefore: Date) async throws -> SweepCounts {
        try await sweep(now: now, windowsBefore: windowsBefore, outboxBefore: outboxBefore, deliveriesBefore: outboxBefore)
    }
}

/// The console outbox and the audit log.
public protocol EventRepository: Sendable {
    /// Stores an outbox message and keeps only the newest `keep` messages.
    func addOutboxMessage(_ message: OutboxMessage, keep: Int) async throws
    /// The newest outbox messages first, optionally only those to `recipient`.
    func recentOutboxMessages(limit: Int, recipient: String?) async throws -> [OutboxMessage]
    /// Up to `limit` outbox messages numbered after `cursor`, in number order, each with its
    /// number, and the cursor to read on from; a nil cursor starts after the newest message.
    /// One reader can so follow the messages as they arrive (a load generator, a tail of the
    /// outbox). On PostgreSQL a message may commit after one numbered higher was read: a
    /// follower watches for the numbers it skipped.
    func outboxMessages(after cursor: Int64?, limit: Int) async throws -> (
        messages: [(number: Int64, message: OutboxMessage)], cursor: Int64
    )
    /// Appends an audit event.
    func recordAudit(_ event: AuditEvent) async throws
    /// Appends `event` as the first of its aggregate, or, when a row of the same `aggregateKey`
    /// exists, adds one to that row's count instead, atomically (concurrent calls of one key
    /// make one row whose count is the number of calls).
    /// - Returns: true when `event` was written as a new row.
    func recordAggregatedAudit(_ event: AuditEvent, aggregateKey: String) async throws -> Bool
    /// The newest audit events first.
    func recentAuditEvents(limit: Int) async throws -> [AuditEvent]
    /// The audit events `query` selects, newest first (oldest first with `after`).
    func auditEvents(_ query: AuditQuery) async throws -> [AuditEvent]
    /// How many audit events `query` selects, whatever its limit and offset.
    func countAuditEvents(_ query: AuditQuery) async throws -> Int
    /// Deletes audit events older than `date` (the retention period); returns how many.
    func deleteAuditEvents(before date: Date) async throws -> Int
}

/// The settings every instance shares, by configuration key (`issuer`, `email.smtp.host`, …).
/// Configuration given to an instance (flags, environment, file) takes precedence over them.
public protocol SettingsRepository: Sendable {
    /// Every stored setting.
    func storedSettings() async throws -> [String: String]
    /// Stores `values` and removes `keys`, all or nothing.
    func updateSettings(set values: [String: String], remove keys: [String], at: Date) async throws
}

/// Whether the database answers, for readiness checks.
public protocol StorageHealth: Sendable {
    /// One round trip to the database; throws when it does not answer in time.
    func ping() async throws
}

/// Everything a backend provides. One type per database conforms to all of it.
public typealias SesameStorage = UserRepository & ApplicationRepository & ConnectionRepository
    & ChallengeRepository & GrantRepository & KeyRepository & RateLimitRepository & EventRepository
    & PasskeyRepository & DeviceKeyStorage & SettingsRepository & StorageHealth & SweepRepository
    & BrowserSessionRepository & LinkRequestRepository & DeliveryRepository & WebhookRepository
    & MessageTemplateRepository & ChallengeRetryRepository & ClientGrantRepository & AccessControlRepository & JobRepository
    & DPoPProofRepository
