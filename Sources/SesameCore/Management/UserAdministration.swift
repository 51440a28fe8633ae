import Foundation
public import Logging

/// What an operator does to users (`sesame admin users …` and `/api/v2/users`): create them
/// (keeping the ids they had elsewhere), look them up, change, block, unblock and delete them.
/// Each change is one storage transaction, stamped by the injected clock and audited.
public struct UserAdministration: Sendable, OperatorService {
    let context: OperatorContext
    /// Ends the user's browser sessions, telling the applications they answered.
    let sessions: SessionApplications

    /// Creates the service over `storage`; `wake` wakes the delivery worker after logout
    /// tokens are queued.
    public init(
        storage: any SesameStorage, clock: any SesameClock = SystemClock(), random: any RandomSource = SystemRandomSource(),
        logger: Logger = Logger(label: "sesame"), wake: (@Sendable () async -> Void)? = nil
    ) {
        context = OperatorContext(storage: storage, clock: clock, random: random, logger: logger)
        sessions = SessionApplications(storage: storage, clock: clock, random: random, wake: wake)
    }

    /// The user with this Auth0 `user_id` (`email|5f…`).
    /// - Throws: 404 `not_found` for a malformed or unknown id.
    public func user(_ userID: String) async throws -> User {
        guard let (_, id) = User.parse(userID: userID), let user = try await storage.user(id: id) else {
            throw SesameError(.notFound, .notFound, "No user \(userID).")
        }
        return user
    }

    /// The user `reference` names: an Auth0 `user_id` (`email|5f…`), an email address or an
    /// E.164 phone number (as the operator knows them), compared as logins compare them.
    /// - Throws: 404 `not_found` for no such user; 400 when an address names several users
    ///   (give the `user_id`).
    public func user(matching reference: String) async throws -> User {
        if User.parse(userID: reference) != nil, let user = try? await user(reference) { return user }
        let match: UserSearch.Match? =
            if let email = Identifier.normalizedEmail(reference) {
                .email(email)
            } else if let phone = Identifier.normalizedPhone(reference) {
                .phoneNumber(phone)
            } else { nil }
        var found: [User] = []
        if let match { found = try await storage.searchUsers(UserSearch(match: match, limit: 10)) }
        guard found.count <= 1 else {
            let ids = found.map(\.userID).joined(separator: ", ")
            throw SesameError.invalidRequest("Several users have \(reference) (\(ids)): give the user_id.")
        }
        guard let user = found.first else { throw SesameError(.notFound, .notFound, "No user \(reference).") }
        return user
    }

    /// Blocks a user: no codes are delivered, no login succeeds, every refresh token (with
    /// the access tokens of its family) is revoked, in one transaction, and every browser
    /// session ends.
    @discardableResult
    public func block(_ userID: String) async throws -> User {
        try await setBlocked(true, userID, event: .userBlocked)
    }

    /// Lets a blocked user sign in again; revoked tokens stay revoked.
    @discardableResult
    public func unblock(_ userID: String) async throws -> User {
        try await setBlocked(false, userID, event: .userUnblocked)
    }

    /// Deletes a user and revokes their refresh tokens, in one transaction, then ends their
    /// browser sessions (a session of a deleted user is refused anyway: it finds no user).
    public func delete(_ userID: String) async throws {
        let user = try await user(userID)
        try await storage.deleteUser(id: user.id, at: clock.now())
        try await sessions.endSessions(userID: user.userID)
        await audit.record(.userDeleted, user: user.userID, detail: "by an operator")
    }

    private func setBlocked(_ blocked: Bool, _ userID: String, event: AuditEventType) async throws -> User {
        let user = try await user(userID)
        let updated = try await storage.setUserBlocked(id: user.id, blocked, at: clock.now())
        if blocked { try await sessions.endSessions(userID: user.userID) }
        await audit.record(event, user: user.userID, detail: "by an operator")
        return updated
    }
}
