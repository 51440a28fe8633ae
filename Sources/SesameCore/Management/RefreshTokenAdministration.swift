import Foundation
public import Logging

/// Refresh tokens as operators see them (`/api/v2/refresh-tokens`): one per live login (a
/// refresh-token family), named by the family's id, which rotation keeps. Revoking one ends
/// the login: its refresh token and the access tokens that name it. Each revocation is audited.
public struct RefreshTokenAdministration: Sendable {
    let storage: any SesameStorage
    let clock: any SesameClock
    let audit: AuditLog

    /// Creates the service over `storage`.
    public init(storage: any SesameStorage, clock: any SesameClock, logger: Logger = Logger(label: "sesame")) {
        self.storage = storage
        self.clock = clock
        audit = AuditLog(storage: storage, clock: clock, logger: logger)
    }

    /// The user's live refresh tokens (the current token of each family), newest first.
    public func list(userID: String) async throws -> [RefreshToken] {
        try await storage.liveRefreshTokens(userID: userID, at: clock.now())
    }

    /// The live refresh token of the family `id`.
    /// - Throws: 404 when there is none (unknown, revoked or expired).
    public func token(_ id: String) async throws -> RefreshToken {
        guard let token = try await storage.liveRefreshToken(familyID: id, at: clock.now()) else { throw Self.notFound }
        return token
    }

    /// Revokes the family `id`.
    /// - Throws: 404 when it holds no live token.
    public func revoke(_ id: String) async throws {
        let token = try await token(id)
        guard try await storage.revokeRefreshFamily(id, at: clock.now()) else { throw Self.notFound }
        await audit.record(
            .refreshTokenRevoked, user: token.userID, client: token.clientID, detail: "family \(id) by an operator")
    }

    /// Revokes every refresh token of the user.
    public func revokeAll(userID: String) async throws {
        try await storage.revokeRefreshTokens(userID: userID, at: clock.now())
        await audit.record(.refreshTokenRevoked, user: userID, detail: "every family by an operator")
    }

    private static let notFound = SesameError(.notFound, .notFound, "No such refresh token.")
}
