public import Foundation

/// A registered passkey: the public key a user's authenticator made for this relying party.
public struct PasskeyCredential: Sendable, Codable, Equatable {
    /// The credential ID, base64url without padding (as browsers send `id`).
    public var id: String
    /// The owner's internal id (``User/id``).
    public var userID: String
    /// A name the user can change ("iPhone", "YubiKey 5").
    public var name: String
    /// The COSE_Key bytes exactly as the authenticator sent them.
    public var publicKey: [UInt8]
    /// The COSE algorithm number of ``publicKey``.
    public var algorithm: Int
    /// The last counter the authenticator reported (0 for most synced passkeys).
    public var signCount: UInt32
    /// The BE flag at registration: the credential may be synced between devices.
    public var backupEligible: Bool
    /// The BS flag at the last use.
    public var backedUp: Bool
    /// The attestation format the credential registered with.
    public var format: String
    /// The authenticator model, as a UUID string (all zeros when not attested).
    public var aaguid: String
    /// Transport hints from registration, given back in `allowCredentials`.
    public var transports: [String]
    /// A disabled passkey can never sign in again (an operator's or the user's decision).
    public var disabled: Bool
    public var createdAt: Date
    public var lastUsedAt: Date?

    /// Creates a passkey record.
    public init(
        id: String, userID: String, name: String, publicKey: [UInt8], algorithm: Int, signCount: UInt32,
        backupEligible: Bool, backedUp: Bool, format: String, aaguid: String, transports: [String] = [],
        disabled: Bool = false, createdAt: Date, lastUsedAt: Date? = nil
    ) {
        self.id = id
        self.userID = userID
        self.name = name
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.format = format
        self.aaguid = aaguid
        self.transports = transports
        self.disabled = disabled
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// What a passkey ceremony is for.
public enum PasskeyCeremony: String, Sendable, Codable {
    /// `/passkey/register`: a new user signs up with a new passkey.
    case registration
    /// `/passkey/challenge`: an existing passkey signs in.
    case authentication
    /// A signed-in person adds a passkey to their account (the hosted page's offer after a
    /// code login).
    case enrollment
}

/// The server half of a started ceremony, found again by the `auth_session` the client holds.
/// Stored under an HMAC of that value; finishing consumes it, so each challenge is answered once.
public struct PasskeySession: Sendable, Codable, Equatable {
    public var id: String
    public var sessionHash: [UInt8]
    public var ceremony: PasskeyCeremony
    public var clientID: String
    public var connection: String
    /// The challenge the authenticator must sign.
    public var challenge: [UInt8]
    /// Registration only: the user to create (id, identifier, profile).
    public var pendingUser: User?
    public var createdAt: Date
    public var expiresAt: Date

    /// Creates a session record.
    public init(
        id: String, sessionHash: [UInt8], ceremony: PasskeyCeremony, clientID: String, connection: String,
        challenge: [UInt8], pendingUser: User?, createdAt: Date, expiresAt: Date
    ) {
        self.id = id
        self.sessionHash = sessionHash
        self.ceremony = ceremony
        self.clientID = clientID
        self.connection = connection
        self.challenge = challenge
        self.pendingUser = pendingUser
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A connection's passkey policy, the knobs of Auth0's passkey policy plus the checks WebAuthn
/// leaves to the relying party.
public struct PasskeyPolicy: Sendable, Codable, Equatable {
    /// Whether passkeys may sign up and sign in on this connection.
    public var enabled: Bool
    /// `required`, `preferred` or `discouraged`; `required` makes the UV flag mandatory.
    public var userVerification: String
    /// `required`, `preferred` or `discouraged` (discoverable credentials).
    public var residentKey: String
    /// `none`, `indirect`, `direct` or `enterprise`.
    public var attestation: String
    /// COSE algorithm numbers offered at registration, in order of preference.
    public var algorithms: [Int]
    /// PEM certificates attestation chains must reach; empty accepts unattested passkeys
    /// and reports attested ones as unverified.
    public var trustAnchorsPEM: [String]
    /// Milliseconds the client has to finish a ceremony.
    public var timeoutMilliseconds: Int

    /// Auth0's defaults: EdDSA, ES256 and RS256, UV preferred, discoverable credentials required.
    public init(
        enabled: Bool = true, userVerification: String = "preferred", residentKey: String = "required",
        attestation: String = "none", algorithms: [Int] = [-8, -7, -257], trustAnchorsPEM: [String] = [],
        timeoutMilliseconds: Int = 60000
    ) {
        self.enabled = enabled
        self.userVerification = userVerification
        self.residentKey = residentKey
        self.attestation = attestation
        self.algorithms = algorithms
        self.trustAnchorsPEM = trustAnchorsPEM
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// The problems with this policy, empty when it is usable.
    public func problems() -> [String] {
        var found: [String] = []
        let levels = ["required", "preferred", "discouraged"]
        if !levels.contains(userVerification) { found.append("passkeys.user_verification must be one of \(levels)") }
        if !levels.contains(residentKey) { found.append("passkeys.resident_key must be one of \(levels)") }
        let conveyance = ["none", "indirect", "direct", "enterprise"]
        if !conveyance.contains(attestation) { found.append("passkeys.attestation must be one of \(conveyance)") }
        if algorithms.isEmpty { found.append("passkeys.algorithms must name at least one algorithm") }
        if !(10_000...600_000).contains(timeoutMilliseconds) { found.append("passkeys.timeout must be 10000…600000 ms") }
        return found
    }
}
