import Foundation

/// What a user's first proof of their address ends, all in one storage operation
/// (``UserRepository/verifyAddress(userID:keepingChallenge:at:_:)``): everything made while the
/// address was unproven may belong to someone who never owned it (account pre-hijacking).
public struct AddressVerification: Sendable, Equatable {
    /// The user as stored after the verification.
    public var user: User
    /// Passkeys deleted.
    public var passkeys: Int
    /// Device keys deleted.
    public var deviceKeys: Int
    /// Authorization codes not yet exchanged, deleted.
    public var authorizationCodes: Int
    /// Link requests still waiting or approved, refused.
    public var linkRequests: Int
    /// Passkey ceremonies of the user or of a signup for the address, ended.
    public var passkeySessions: Int
    /// Browser sessions revoked.
    public var browserSessions: Int

    /// Creates an outcome.
    public init(
        user: User, passkeys: Int = 0, deviceKeys: Int = 0, authorizationCodes: Int = 0, linkRequests: Int = 0,
        passkeySessions: Int = 0, browserSessions: Int = 0
    ) {
        self.user = user
        self.passkeys = passkeys
        self.deviceKeys = deviceKeys
        self.authorizationCodes = authorizationCodes
        self.linkRequests = linkRequests
        self.passkeySessions = passkeySessions
        self.browserSessions = browserSessions
    }
}
