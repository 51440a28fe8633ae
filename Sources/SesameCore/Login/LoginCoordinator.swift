import Foundation
import Logging

/// The one shared last step of every login method: record the login (creating the user on
/// first login), refuse blocked users, audit, and issue tokens. Internal to Core: each login
/// service's public `finish` ends here, so no transport can assemble a login without it.
struct LoginCoordinator: Sendable {
    let storage: any SesameStorage
    let issuer: TokenIssuer
    let clock: any SesameClock
    let logger: Logger

    /// Records a login for `candidate` (used as the new user when none exists) and returns it.
    /// - Throws: `user is blocked` for a blocked user.
    func recordLogin(_ candidate: User, method: LoginMethod, clientID: String, ip: String?) async throws -> User {
        let now = clock.now()
        let audit = loginAudit(method: method, clientID: clientID, ip: ip, at: now)
        return try await recorded(try await storage.recordLogin(candidate, at: now, audit: audit), audit: audit)
    }

    /// The events a login recorded at `now` is audited with, for each way it can turn out. They
    /// are written with the login: one storage operation, one statement where the backend can
    /// choose the outcome's events itself.
    func loginAudit(method: LoginMethod, clientID: String, ip: String?, at now: Date) -> LoginAudit {
        let log = AuditLog(storage: storage, clock: clock, logger: logger)
        var events: [LoginAudit.Outcome: [AuditEvent]] = [:]
        for outcome in LoginAudit.Outcome.allCases {
            events[outcome] = Self.events(of: outcome, method: method).map {
                log.event($0.type, client: clientID, ip: ip, detail: $0.detail, at: now)
            }
        }
        return LoginAudit(events: events)
    }

    /// `user` as a login stored it with `audit`: publishes the events written and refuses a
    /// blocked user.
    /// - Throws: `user is blocked` for a blocked user.
    func recorded(_ user: User, audit: LoginAudit) async throws -> User {
        let log = AuditLog(storage: storage, clock: clock, logger: logger)
        for event in audit.events(for: user) { await log.published(event) }
        guard !user.blocked else { throw SesameError.userBlocked }
        return user
    }

    /// What a recorded login is audited as: refused for a blocked user, else a login, after
    /// the user's creation on their first.
    static func events(of outcome: LoginAudit.Outcome, method: LoginMethod) -> [(type: AuditEventType, detail: String)] {
        switch outcome {
        case .blocked: [(.loginRefused, "\(method.rawValue): user is blocked")]
        case .created: [(.userCreated, "\(method.rawValue) signup"), (.login, method.rawValue)]
        case .returning: [(.login, method.rawValue)]
        }
    }

    /// Records the login and issues tokens for it.
    func completeLogin(
        _ candidate: User, method: LoginMethod, request: TokenGrantRequest, ip: String?
    ) async throws -> TokenResponse {
        let user = try await recordLogin(candidate, method: method, clientID: request.application.clientID, ip: ip)
        let now = clock.now()
        return try await issuer.issue(for: user, request, authTime: now, now: now)
    }

    /// Issues tokens for a login recorded earlier (a link approved on another device, finished
    /// by the party that asked): the login is not counted twice, and `authTime` is when the
    /// person proved who they are. The caller has read the user again, so a block since counts.
    func issueTokens(for user: User, request: TokenGrantRequest, authTime: Date) async throws -> TokenResponse {
        guard !user.blocked else { throw SesameError.userBlocked }
        return try await issuer.issue(for: user, request, authTime: authTime, now: clock.now())
    }

    /// Appends a refusal a caller can repeat at will, aggregated per minute and kind
    /// (``AuditLog/recordRefusal(_:user:client:ip:reason:detail:)``).
    func auditRefusal(
        _ type: AuditEventType, user: String? = nil, client: String?, ip: String?, reason: String, detail: String
    ) async {
        await AuditLog(storage: storage, clock: clock, logger: logger)
            .recordRefusal(type, user: user, client: client, ip: ip, reason: reason, detail: detail)
    }

    /// Appends an audit event; a failure to audit is logged, never fatal to the request.
    func audit(_ type: AuditEventType, user: String? = nil, client: String? = nil, ip: String? = nil, detail: String) async {
        await AuditLog(storage: storage, clock: clock, logger: logger)
            .record(type, user: user, client: client, ip: ip, detail: detail)
    }
}
