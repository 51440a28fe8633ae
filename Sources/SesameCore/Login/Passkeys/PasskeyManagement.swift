import Foundation

/// A user's view of their own passkeys: list, rename, delete. Every call names the owner, and
/// a passkey of anyone else answers exactly like one that does not exist.
///
/// The access token must carry Auth0's My Account scopes (`read:me:authentication_methods`,
/// `update:me:authentication_methods`, `delete:me:authentication_methods`), and changes need a
/// recent login, so any token an application happens to hold cannot rename or remove them.
public struct PasskeyManagement: Sendable {
    let storage: any SesameStorage
    let coordinator: LoginCoordinator
    let clock: any SesameClock
    let recentLoginWindow: Int

    /// The scopes each operation needs.
    public enum Scopes {
        public static let read = "read:me:authentication_methods"
        public static let update = "update:me:authentication_methods"
        public static let delete = "delete:me:authentication_methods"
    }

    /// The owner's passkeys, oldest first.
    public func list(_ grant: AccessGrant) async throws -> [PasskeyCredential] {
        try grant.require(scope: Scopes.read)
        return try await storage.passkeys(userID: grant.user.id)
    }

    /// Renames one of the owner's passkeys.
    public func rename(_ id: String, to name: String?, _ grant: AccessGrant) async throws -> PasskeyCredential {
        try authorizeChange(grant, scope: Scopes.update)
        guard let name = name?.trimmingCharacters(in: .whitespacesAndNewlines), (1...100).contains(name.count) else {
            throw SesameError.invalidRequest("name must be 1 to 100 characters")
        }
        _ = try await owned(id, by: grant.user)
        return try await storage.updatePasskey(id: id) { $0.name = name }
    }

    /// Deletes one of the owner's passkeys; it can never sign in again.
    public func delete(_ id: String, _ grant: AccessGrant) async throws {
        try authorizeChange(grant, scope: Scopes.delete)
        _ = try await owned(id, by: grant.user)
        try await storage.deletePasskey(id: id)
        await coordinator.audit(.passkeyDeleted, user: grant.user.userID, detail: id)
    }

    private func authorizeChange(_ grant: AccessGrant, scope: String) throws {
        try grant.require(scope: scope)
        try grant.requireRecentLogin(within: recentLoginWindow, at: clock.now())
    }

    private func owned(_ id: String, by owner: User) async throws -> PasskeyCredential {
        guard let passkey = try await storage.passkey(id: id), passkey.userID == owner.id else {
            throw SesameError(.notFound, .notFound, "No passkey with this id.")
        }
        return passkey
    }
}
