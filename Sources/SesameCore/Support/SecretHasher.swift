import Crypto
import Foundation

/// Turns secrets (one-time codes, magic-link tokens, refresh tokens, authorization codes)
/// into the only form storage ever sees: HMAC-SHA256 under a server key.
///
/// Keys form a list so they can rotate (``HMACKeyRotation``): new secrets are hashed with the
/// newest active key, and a presented secret is accepted if it matches under any key.
public struct SecretHasher: Sendable {
    /// The keys, newest activation first; each HMAC is keyed once and copied for each secret.
    let keys: HMACKeys

    /// Creates a hasher over keys that are all active.
    /// - Parameter keys: the HMAC keys, newest first; must not be empty.
    public init(keys: [[UInt8]]) {
        self.init(ring: HMACKeys(secrets: keys))
    }

    /// Creates a hasher over the shared, reloaded keys.
    public init(ring: HMACKeys) {
        keys = ring
    }

    /// The HMAC of `secret` under the current key, as stored.
    public func hash(_ secret: String, purpose: SecretPurpose) -> [UInt8] {
        Self.mac(secret, purpose: purpose, key: keys.current.mac)
    }

    /// The HMACs of `secret` under every key, newest first, for lookups by hash.
    public func candidates(_ secret: String, purpose: SecretPurpose) -> [[UInt8]] {
        keys.all.map { Self.mac(secret, purpose: purpose, key: $0.mac) }
    }

    /// Whether `secret` hashes to `stored` under any key, compared in constant time.
    public func matches(_ secret: String, stored: [UInt8], purpose: SecretPurpose) -> Bool {
        var matched = false
        for key in keys.all {
            // No early exit: every key is tried so timing does not reveal which one matched.
            matched = Self.constantTimeEquals(Self.mac(secret, purpose: purpose, key: key.mac), stored) || matched
        }
        return matched
    }

    /// Compares two byte strings in time that depends only on their lengths.
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }

    private static func mac(_ secret: String, purpose: SecretPurpose, key: HMAC<SHA256>) -> [UInt8] {
        // The purpose is bound into the MAC so a hash of one kind of secret can never be
        // replayed as another kind (a refresh token as an authorization code, say).
        var message = Array(purpose.rawValue.utf8)
        message.append(0)
        message.append(contentsOf: secret.utf8)
        var hmac = key
        hmac.update(data: message)
        return Array(hmac.finalize())
    }
}

/// What a hashed secret is for; part of the MAC input.
public enum SecretPurpose: String, Sendable {
    case challenge, refreshToken = "refresh_token", authorizationCode = "authorization_code"
    case accessToken = "access_token"
    case passkeySession = "passkey_session"
    case deviceNonce = "device_nonce", adminToken = "admin_token"
    /// Derives a rotated refresh token's replacement from the presented token.
    case refreshRotation = "refresh_rotation"
    /// The hosted login page's session cookie.
    case browserSession = "browser_session"
    /// Ties a hosted-page form to the browser that was shown it (``FormTokens``).
    case formToken = "form_token"
    /// The poll secret of a magic link that works across devices.
    case linkRequest = "link_request"
    /// The signed link of an export's file (``JobFileLinks``).
    case jobFile = "job_file"
    /// A value the hosted pages keep in a cookie and read back (``FormTokens/signed(_:)``).
    case pageCookie = "page_cookie"
    /// The DPoP nonce of a time window (``DPoPNonces``).
    case dpopNonce = "dpop_nonce"
}
