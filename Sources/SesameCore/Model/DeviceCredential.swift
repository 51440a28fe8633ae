public import Foundation

/// The signature algorithm a device key is pinned to. The algorithm follows from the key's
/// type, never from the token: an ES256 key verifies ES256 and nothing else (RFC 8725 §3.1).
public enum DeviceKeyAlgorithm: String, Sendable, Codable, CaseIterable {
    /// ECDSA P-256 with SHA-256: Secure Enclave and Android Keystore keys.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256: TouchIDAuth-era apps.
    case rs256 = "RS256"
}

/// A public key a user registered for one device and one application (Auth0's
/// `public_key` device credential). The app proves possession by signing a short-lived JWT.
public struct DeviceCredential: Sendable, Codable, Equatable {
    /// `dcr_` + 24 hex digits; the `kid` of the device's JWTs.
    public var id: String
    /// The owner's Auth0 `user_id` (`email|…`).
    public var userID: String
    /// The application the key signs in to.
    public var clientID: String
    /// The app's stable device identifier (iOS `identifierForVendor`); unique per user and app.
    public var deviceID: String
    /// A display name for the device.
    public var deviceName: String
    public var algorithm: DeviceKeyAlgorithm
    /// The key as DER SubjectPublicKeyInfo.
    public var publicKey: [UInt8]
    /// TouchIDAuth's fingerprint: MD5 of the raw key bytes as upper-case hex pairs joined by `:`.
    public var fingerprint: String
    /// The key size in bits (256 for P-256).
    public var keyBits: Int
    public var createdAt: Date

    /// Creates a device credential record.
    public init(
        id: String, userID: String, clientID: String, deviceID: String, deviceName: String,
        algorithm: DeviceKeyAlgorithm, publicKey: [UInt8], fingerprint: String, keyBits: Int, createdAt: Date
    ) {
        self.id = id
        self.userID = userID
        self.clientID = clientID
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.algorithm = algorithm
        self.publicKey = publicKey
        self.fingerprint = fingerprint
        self.keyBits = keyBits
        self.createdAt = createdAt
    }
}

/// A management token for `/api/v2`, made by `sesame admin tokens create`. Only the HMAC of
/// the token is stored; the token itself is shown once.
public struct AdminToken: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    public var tokenHash: [UInt8]
    public var createdAt: Date
    /// What the token may do (``ManagementScope`` raw values); empty: everything, as tokens
    /// made before scopes existed could.
    public var scopes: [String]
    /// When the token stops working; nil: never (until deleted).
    public var expiresAt: Date?

    /// Creates an admin token record.
    public init(
        id: String, name: String, tokenHash: [UInt8], createdAt: Date, scopes: [String] = [], expiresAt: Date? = nil
    ) {
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.id = id
        self.name = name
        self.tokenHash = tokenHash
        self.createdAt = createdAt
    }
}
