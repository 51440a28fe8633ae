import Crypto
import Foundation

extension DeviceKeyLogin {
    /// The algorithm is pinned to the registered key's type, so `alg: none`, HS256 with the
    /// public key as the HMAC secret, or RS256 against an EC key never reach a verifier.
    func checkSignature(_ jwt: DeviceJWT, credential: DeviceCredential) throws {
        guard jwt.header.alg == credential.algorithm.rawValue else {
            throw DeviceKeyRefusal(
                .algorithm, detail: "alg \(jwt.header.alg ?? "absent") for a \(credential.algorithm.rawValue) key")
        }
        let key: DevicePublicKey
        do {
            key = try keys.key(der: credential.publicKey, policy: policy)
        } catch {
            // A 1024-bit key registered while the legacy switch was on stops working when it is turned off.
            throw DeviceKeyRefusal(.badSignature, detail: "stored key refused by policy (\(credential.keyBits) bits)")
        }
        guard key.algorithm == credential.algorithm, key.isValidSignature(jwt.signature, for: jwt.signingInput) else {
            throw DeviceKeyRefusal(.badSignature)
        }
    }

    /// `iat`/`exp` within the policy, `aud` naming us, and the legacy fingerprint.
    func checkClaims(_ claims: DeviceJWTClaims, credential: DeviceCredential, assertion: DeviceKeyAssertion) throws {
        guard let iat = claims.iat, let exp = claims.exp else { throw DeviceKeyRefusal(.missingTimes) }
        let now = clock.now().epochSeconds
        guard exp > iat, exp - iat <= policy.maxLifetime else { throw DeviceKeyRefusal(.lifetime, detail: "\(exp - iat) s") }
        guard iat <= now + policy.clockSkew else { throw DeviceKeyRefusal(.future, detail: "iat \(iat - now) s ahead") }
        guard exp + policy.clockSkew > now else { throw DeviceKeyRefusal(.expired, detail: "\(now - exp) s ago") }
        switch assertion {
        case .bearer:
            // RFC 7523 §3: the audience is the authorization server; we accept its issuer URL
            // (with or without the slash) and its token endpoint.
            guard claims.aud.contains(where: acceptedAudiences.contains) else { throw DeviceKeyRefusal(.audience) }
        case .legacy:
            // TouchIDAuth sets neither aud nor jti; an aud that is present must still name us.
            if !claims.aud.isEmpty, !claims.aud.contains(where: acceptedAudiences.contains) {
                throw DeviceKeyRefusal(.audience)
            }
            if let sub = claims.sub, sub.uppercased() != credential.fingerprint { throw DeviceKeyRefusal(.fingerprint) }
        }
    }

    var acceptedAudiences: Set<String> {
        [settings.issuer, settings.baseURL, settings.issuer + "oauth/token"]
    }

    /// The single-use gates, after every other check so a bad assertion burns nothing: the
    /// server nonce, when the application asks for it, consumed here; and the `jti` (or, for a
    /// legacy JWT without one, the signed bytes), returned to be claimed with the login.
    func consume(_ jwt: DeviceJWT, credential: DeviceCredential, assertion: DeviceKeyAssertion, application: Application)
        async throws -> ReplayClaim
    {
        let now = clock.now()
        let replayKey = try replayKey(jwt, credential: credential, assertion: assertion)
        if application.deviceKeyNonceRequired {
            guard let nonce = jwt.claims.nonce,
                try await storage.consumeDeviceNonce(
                    hashes: hasher.candidates(nonce, purpose: .deviceNonce), clientID: application.clientID, at: now)
            else { throw DeviceKeyRefusal(.nonce) }
        }
        await collectGarbage(now)
        // Kept until the assertion can no longer pass the expiry check; a claim after that is refused anyway.
        let until = Date(timeIntervalSince1970: Double((jwt.claims.exp ?? 0) + policy.clockSkew + 1))
        return ReplayClaim(hash: replayKey, expiresAt: until)
    }

    /// The `jti` is not a secret (it travels in the token), so a plain SHA-256 is stored; it is
    /// scoped to the credential so one device cannot block another's ids. Without a `jti`, a
    /// legacy JWT is identified by the bytes its signature covers, not by the signature, which
    /// an attacker could re-encode (ECDSA `s` → `n - s`) to get a "new" token.
    private func replayKey(_ jwt: DeviceJWT, credential: DeviceCredential, assertion: DeviceKeyAssertion) throws -> [UInt8] {
        if let jti = jwt.claims.jti, !jti.isEmpty {
            return Array(SHA256.hash(data: Array("jti\u{0}\(credential.id)\u{0}\(jti)".utf8)))
        }
        guard case .legacy = assertion else { throw DeviceKeyRefusal(.missingJTI) }
        return Array(SHA256.hash(data: Array("jwt\u{0}\(credential.id)\u{0}".utf8) + jwt.signingInput))
    }

    /// Used ids live at most a couple of minutes; about one login in 256 sweeps the expired ones.
    private func collectGarbage(_ now: Date) async {
        guard random.bytes(1)[0] == 0 else { return }
        _ = try? await storage.deleteExpiredDeviceAssertions(before: now)
    }
}

/// An assertion's single-use id and how long it is kept.
struct ReplayClaim: Sendable {
    let hash: [UInt8]
    let expiresAt: Date
}
