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
        let log = AuditLog(storage: storage, clock: clock, logger: logger)
        // The events are written in the login's own transaction: one storage operation.
        let events: @Sendable (User) -> [AuditEvent] = { user in
            Self.events(of: user, method: method).map {
                log.event($0.type, user: user.userID, client: clientID, ip: ip, detail: $0.detail, at: now)
            }
        }
        let user = try await storage.recordLogin(candidate, at: now, audit: events)
        for event in events(user) { await log.published(event) }
        guard !user.blocked else { throw SesameError.userBlocked }
        return user
    }

    /// What a recorded login is audited as: refused for a blocked user, else a login, after
    /// the user's creation on their first.
    static func events(of user: User, method: LoginMethod) -> [(type: AuditEventType, detail: String)] {
        guard !user.blocked else { return [(.loginRefused, "\(method.rawValue): user is blocked")] }
        return (user.loginsCount == 1 ? [(.userCreated, "\(method.rawValue) signup")] : []) + [(.login, method.rawValue)]
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

    /// Appends an audit event; a failure to audit is logged, never fatal to the request.
    func audit(_ type: AuditEventType, user: String? = nil, client: String? = nil, ip: String? = nil, detail: String) async {
        await AuditLog(storage: storage, clock: clock, logger: logger)
            .record(type, user: user, client: client, ip: ip, detail: detail)
    }
}
