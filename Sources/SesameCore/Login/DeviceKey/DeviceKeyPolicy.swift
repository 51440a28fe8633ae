import Foundation

/// The rules device-key assertions are held to (docs/device-keys.md, "The rules").
public struct DeviceKeyPolicy: Sendable, Equatable {
    /// Accept 1024-bit RSA keys, which TouchIDAuth generates. Off by default: a 1024-bit key
    /// is within reach of a well-funded attacker. Config `device_keys.allow_rsa1024`.
    public var allowRSA1024 = false
    /// The longest an assertion may live, `exp - iat`, in seconds.
    public var maxLifetime: Int64 = 60
    /// Tolerated clock difference between device and server, in seconds.
    public var clockSkew: Int64 = 30
    /// How long a `/device-key/challenge` nonce stays usable, in seconds.
    public var nonceLifetime = 120
    /// `/device-key/challenge` calls per IP per window.
    public var challengeLimitPerIP = RateLimitRule(limit: 600, windowSeconds: 60)

    /// Creates the default policy.
    public init() {}

    /// The RSA key sizes registration and login accept under this policy.
    public func acceptsRSA(bits: Int) -> Bool {
        (2048...4096).contains(bits) || (allowRSA1024 && bits == 1024)
    }
}
