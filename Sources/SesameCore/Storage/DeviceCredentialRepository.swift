public import Foundation

/// Device public keys (Auth0 `public_key` device credentials).
public protocol DeviceCredentialRepository: Sendable {
    /// Stores `credential`, atomically replacing any key of the same user, application and
    /// device id (re-registering a device replaces its key).
    func saveDeviceCredential(_ credential: DeviceCredential) async throws
    /// The credential with this id, or nil.
    func deviceCredential(id: String) async throws -> DeviceCredential?
    /// The credential with this id and the user whose id (without its connection) is `userID`,
    /// nil when there is no such user, in one read; nil when there is no such credential.
    /// Device-key login names the owner its assertion claims and then checks the credential is
    /// that owner's, so a login reads its key and its user at once.
    func deviceCredential(id: String, withUser userID: String) async throws -> (DeviceCredential, User?)?
    /// Credentials filtered by owner and application (nil matches any), oldest first.
    func deviceCredentials(userID: String?, clientID: String?) async throws -> [DeviceCredential]
    /// Deletes a credential; throws `.notFound`.
    func deleteDeviceCredential(id: String) async throws
    /// Deletes every credential of a user; returns how many.
    func deleteDeviceCredentials(userID: String) async throws -> Int
}

/// The single-use gates of device-key login: assertion ids (`jti`) and server nonces.
/// Both must be atomic against concurrent callers, on one instance or many.
public protocol DeviceAssertionRepository: Sendable {
    /// Records an assertion id until `expiresAt`. True for exactly one of any number of
    /// concurrent callers while the id is unexpired; an expired record may be claimed again.
    func claimAssertionID(_ hash: [UInt8], expiresAt: Date, at now: Date) async throws -> Bool
    /// Claims an assertion id as ``claimAssertionID(_:expiresAt:at:)`` does and, only if the
    /// claim wins, records the login as ``UserRepository/recordLogin(_:at:audit:)`` does, all
    /// in one transaction: nil, with nothing written, when the id is held. A device-key login's
    /// replay gate and its record are then one write instead of two.
    func recordLogin(
        _ newUser: User, at now: Date, audit: LoginAudit, claimingAssertionID hash: [UInt8], expiresAt: Date
    ) async throws -> User?
    /// Stores a server nonce (by HMAC) for `clientID`.
    func createDeviceNonce(hash: [UInt8], clientID: String, createdAt: Date, expiresAt: Date) async throws
    /// Consumes the live nonce of `clientID` with one of these hashes: true for exactly one caller.
    func consumeDeviceNonce(hashes: [[UInt8]], clientID: String, at now: Date) async throws -> Bool
    /// Deletes assertion ids and nonces that expired before `date`; returns how many.
    func deleteExpiredDeviceAssertions(before date: Date) async throws -> Int
}

/// Management tokens for `/api/v2`, stored by HMAC.
public protocol AdminTokenRepository: Sendable {
    /// Stores a token; throws `.alreadyExists` on a duplicate id or hash.
    func createAdminToken(_ token: AdminToken) async throws
    /// The token with one of these hashes, or nil.
    func adminToken(hashes: [[UInt8]]) async throws -> AdminToken?
    /// All tokens, oldest first.
    func listAdminTokens() async throws -> [AdminToken]
    /// Deletes a token; throws `.notFound`.
    func deleteAdminToken(id: String) async throws
}

/// What device-key login adds to ``SesameStorage``.
public typealias DeviceKeyStorage = DeviceCredentialRepository & DeviceAssertionRepository & AdminTokenRepository
