import Foundation

/// A one-use server nonce for the stronger device-key mode.
public struct DeviceKeyChallenge: Sendable, Equatable {
    /// 256 random bits, base64url; the assertion carries it in its `nonce` claim.
    public var nonce: String
    /// Seconds until it expires.
    public var expiresIn: Int
}

extension DeviceKeyLogin {
    /// `POST /device-key/challenge`: a fresh nonce for `application`. Only its HMAC is stored;
    /// it is consumed by the first login that carries it. Rate-limited per IP because it
    /// writes to the database without authentication.
    public func challenge(application: Application, ip: String) async throws -> DeviceKeyChallenge {
        guard application.allows(GrantType.jwtBearer) else { throw SesameError.grantNotAllowed(GrantType.jwtBearer) }
        let now = clock.now()
        try await RateLimiter(storage: storage).hit("device_key_challenge", ip: ip, rule: policy.challengeLimitPerIP, at: now)
        let nonce = random.token(32)
        try await storage.createDeviceNonce(
            hash: hasher.hash(nonce, purpose: .deviceNonce), clientID: application.clientID, createdAt: now,
            expiresAt: now.addingTimeInterval(Double(policy.nonceLifetime)))
        return DeviceKeyChallenge(nonce: nonce, expiresIn: policy.nonceLifetime)
    }
}
