/// The result of a successful authentication: the values to write back to the credential record
/// (§7.2 step 24).
public struct VerifiedAuthentication: Sendable, Hashable {
    /// The credential ID that signed.
    public let credentialID: [UInt8]
    /// The new signature counter to store.
    public let newSignCount: UInt32
    /// All authenticator data flags.
    public let flags: AuthenticatorFlags
    /// The user handle the authenticator returned, if any (identifies the account for passkey login).
    public let userHandle: [UInt8]?

    /// UV: the user was verified.
    public var userVerified: Bool { flags.userVerified }
    /// BE: the credential may sync.
    public var backupEligible: Bool { flags.backupEligible }
    /// BS: the credential is backed up now (store as the new backup state).
    public var backedUp: Bool { flags.backedUp }
    /// `single_device` or `multi_device`, from BE.
    public var deviceType: CredentialDeviceType { flags.deviceType }
}
