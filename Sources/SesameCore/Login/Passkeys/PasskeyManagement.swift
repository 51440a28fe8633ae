import Foundation

/// A user's view of their own passkeys: list, rename, delete. Every call names the owner, and
/// a passkey of anyone else answers exactly like one that does not exist.
public struct PasskeyManagement: Sendable {
    let storage: any SesameStorage
    let coordinator: LoginCoordinator

    /// The owner's passkeys, oldest first.
    public func list(owner: User) async throws -> [PasskeyCredential] {
        try await storage.passkeys(userID: owner.id)
    }

    /// Renames one of the owner's passkeys.
    public func rename(_ id: String, to name: String?, owner: User) async throws -> PasskeyCredential {
        guard let name = name?.trimmingCharacters(in: .whitespacesAndNewlines), (1...100).contains(name.count) else {
            throw SesameError.invalidRequest("name must be 1 to 100 characters")
        }
        _ = try await owned(id, by: owner)
        return try await storage.updatePasskey(id: id) { $0.name = name }
    }

    /// Deletes one of the owner's passkeys; it can never sign in again.
    public func delete(_ id: String, owner: User) async throws {
        _ = try await owned(id, by: owner)
        try await storage.deletePasskey(id: id)
        await coordinator.audit("passkey_deleted", user: owner.userID, detail: id)
    }

    private func owned(_ id: String, by owner: User) async throws -> PasskeyCredential {
        guard let passkey = try await storage.passkey(id: id), passkey.userID == owner.id else {
            throw SesameError(.notFound, "not_found", "No passkey with this id.")
        }
        return passkey
    }
}
