import Foundation

/// A link request begun: what the asking party shows and keeps.
public struct LinkRequestStarted: Sendable {
    /// The request's public id (the mailed link carries it as `request`).
    public var id: String
    /// The secret the asker polls with; returned once, stored only as an HMAC.
    public var pollSecret: String
    /// The two digits the asker shows, for the person to type on the link's device.
    public var matchCode: String
    /// Seconds until the link and the request expire.
    public var expiresIn: Int
    /// Seconds to wait between polls.
    public var interval: Int
    /// The answer `/passwordless/start` would give, identical for known and unknown addresses.
    public var result: PasswordlessStartResult
}

/// Magic links that work across devices, with a match code (OAuth device authorization,
/// RFC 8628, in the terms of a link). The party that asks for a link (a tab of the hosted
/// login page, or a terminal) holds a poll secret and polls; the person opens the link on
/// any device and types the two-digit number the asking screen shows; then the asker is
/// signed in.
///
/// Security invariants: the poll secret is a 256-bit token stored only as an HMAC; the match
/// code never travels in the mail, so a link that a stranger asked for with someone else's
/// address cannot sign the stranger in; deciding needs the link's own secret, not just the
/// request id; a wrong number kills the link; every transition is a conditional update that
/// succeeds once.
public struct LinkRequests: Sendable, LoginService {
    let context: LoginContext
    let passwordless: PasswordlessLogin

    /// Seconds between polls (RFC 8628 §3.2 `interval`).
    public static let pollInterval = 2

    /// Mails a link for `request` and begins a request for it. The link is sent exactly as
    /// `/passwordless/start` sends it (rate limits, identical answers for known and unknown
    /// addresses), with the request's id in it.
    /// - Throws: 400 `invalid_request` for an sms connection, and whatever starting a link throws.
    public func start(_ request: PasswordlessStartRequest) async throws -> LinkRequestStarted {
        let connection = try await passwordless.startConnection(request.connection)
        guard connection.strategy == .email else {
            throw SesameError.invalidRequest("Links across devices are sent by email only.")
        }
        var linkStart = request
        linkStart.send = SendMode.link.rawValue
        linkStart.linkRequestID = random.hex(12)
        let result = try await passwordless.start(linkStart)
        let pollSecret = random.token(32)
        let now = clock.now()
        let stored = LinkRequest(
            id: linkStart.linkRequestID!, pollSecretHash: hasher.hash(pollSecret, purpose: .linkRequest),
            challengeID: result.id, clientID: result.clientID, connection: connection.name, recipient: result.recipient,
            matchCode: random.digits(2), createdAt: now, expiresAt: now.addingTimeInterval(Double(connection.linkLifetime)),
            ip: request.ip)
        try await storage.createLinkRequest(stored)
        return LinkRequestStarted(
            id: stored.id, pollSecret: pollSecret, matchCode: stored.matchCode, expiresIn: connection.linkLifetime,
            interval: Self.pollInterval, result: result)
    }

    /// The live request with this id, for the page a link opens; nil when unknown or expired.
    public func request(id: String?) async throws -> LinkRequest? {
        guard let id, id.count == 24, id.allSatisfy(\.isHexDigit) else { return nil }
        guard let request = try await storage.linkRequest(id: id), request.isLive(at: clock.now()) else { return nil }
        return request
    }

    /// Whether `pollSecret` (the asking browser's) is the poll secret of `request`: the link
    /// was opened on the device that asked for it.
    public func isAsker(_ pollSecret: String?, of request: LinkRequest) -> Bool {
        guard let pollSecret, !pollSecret.isEmpty, pollSecret.count <= 128 else { return false }
        return hasher.matches(pollSecret, stored: request.pollSecretHash, purpose: .linkRequest)
    }

    /// Where the request of `pollSecret` is, for polling; an unknown secret reads as expired,
    /// and so does a request whose link a newer one to the same address replaced.
    /// Reads only: polling never changes anything.
    public func status(pollSecret: String?) async throws -> LinkRequestStatus {
        try await poll(pollSecret: pollSecret).status
    }

    /// ``status(pollSecret:)``, and whether an expired request's link was replaced by a newer
    /// one (the waiting page says so instead of waiting until the link's lifetime ends).
    public func poll(pollSecret: String?) async throws -> (status: LinkRequestStatus, superseded: Bool) {
        guard let request = try await lookup(pollSecret), request.isLive(at: clock.now()) else { return (.expired, false) }
        switch request.status {
        case .pending:
            // Only the newest link to an address works: a newer start killed this one.
            let newest = try await storage.newestChallenge(connection: request.connection, recipient: request.recipient)
            if let newest, newest.id != request.challengeID { return (.expired, true) }
            return (.pending, false)
        case .approved: return (.approved, false)
        case .denied: return (.denied, false)
        case .completed: return (.completed, false)
        }
    }

    /// Finishes an approved request, once: returns its user, read again.
    /// - Parameter clientID: the application finishing it, when it says; the request's own only.
    /// - Throws: 400 `authorization_pending` while it waits, 403 `access_denied` when refused,
    ///   400 `expired_token` when expired, used, unknown or another application's, and
    ///   `user is blocked` for a user blocked since.
    public func complete(pollSecret: String?, clientID: String? = nil) async throws -> User {
        try await completed(pollSecret: pollSecret, clientID: clientID).user
    }

    /// The magic-link grant at the token endpoint: finishes the request of `pollSecret` for
    /// the presenting application and issues tokens as the passwordless code grant does. The
    /// login was recorded when the link was confirmed, and is not counted again.
    /// - Throws: as ``complete(pollSecret:clientID:)``.
    public func finish(pollSecret: String?, request: TokenGrantRequest) async throws -> TokenResponse {
        // A link session finishes a passwordless login: the applications that may use codes may use it.
        try request.application.requireGrant(GrantType.passwordlessOTP)
        let (linkRequest, user) = try await completed(pollSecret: pollSecret, clientID: request.application.clientID)
        return try await coordinator.issueTokens(
            for: user, request: request, authTime: linkRequest.decidedAt ?? clock.now())
    }

    /// The request of `pollSecret` in any state.
    func lookup(_ pollSecret: String?) async throws -> LinkRequest? {
        guard let pollSecret, !pollSecret.isEmpty, pollSecret.count <= 128 else { return nil }
        return try await storage.linkRequest(pollSecretHashes: hasher.candidates(pollSecret, purpose: .linkRequest))
    }

    static let expired = SesameError(.link(.expired), "The link request has expired or was already used: start again.")
    static let denied = SesameError(.link(.denied), "The sign-in was refused on the other device.")
}
