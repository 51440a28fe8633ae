public import Foundation

/// Passkeys and the ceremonies that create and use them. Consuming a session and moving a
/// sign counter are the single-use gates and must be atomic across instances.
public protocol PasskeyRepository: Sendable {
    /// Stores a started ceremony.
    func createPasskeySession(_ session: PasskeySession) async throws
    /// Consumes the live session with one of these hashes: returns it to exactly one caller,
    /// nil when it is unknown, expired or already used.
    func consumePasskeySession(hashes: [[UInt8]], at: Date) async throws -> PasskeySession?
    /// Deletes sessions that expired before `date`; returns how many.
    func deleteExpiredPasskeySessions(before date: Date) async throws -> Int

    /// Stores a new passkey; throws `.alreadyExists` when its credential ID is registered.
    func createPasskey(_ passkey: PasskeyCredential) async throws
    /// Creates `user` and stores `passkey` for it in one transaction, so a signup never
    /// leaves a user without a passkey or a passkey without its user. Throws `.alreadyExists`
    /// when the user's (connection, identifier) or the credential ID is taken.
    func createUser(_ user: User, withPasskey passkey: PasskeyCredential) async throws
    /// The passkey with this credential ID, or nil.
    func passkey(id: String) async throws -> PasskeyCredential?
    /// The user's passkeys, oldest first.
    func passkeys(userID: String) async throws -> [PasskeyCredential]
    /// Records a use: the counter moves from `expectedCount` to `newCount` only if it still
    /// is `expectedCount`, so of two concurrent uses of one assertion only one succeeds.
    func recordPasskeyUse(
        id: String, expectedCount: UInt32, newCount: UInt32, backedUp: Bool, at: Date
    ) async throws -> Bool
    /// Applies `transform` to the stored passkey (rename, disable) and saves it; `.notFound`.
    func updatePasskey(
        id: String, _ transform: @escaping @Sendable (inout PasskeyCredential) throws -> Void
    ) async throws -> PasskeyCredential
    /// Deletes a passkey; throws `.notFound`.
    func deletePasskey(id: String) async throws
    /// Deletes every passkey of a user created before `date`; returns how many.
    func deletePasskeys(userID: String, createdBefore date: Date) async throws -> Int
}
