import Crypto
import Foundation

/// Device-key login (the Touch ID flow): the app proves possession of a registered private key
/// by signing a short-lived JWT. Replay-proof: each assertion is single use (its `jti`, stored
/// until it expires), and an application may also require a one-use server nonce.
///
/// ```swift
/// let tokens = try await sesame.deviceKeys.login.finish(.bearer(assertion: jwt), request: grant, ip: ip)
/// ```
public struct DeviceKeyLogin: Sendable, LoginService {
    let context: LoginContext
    /// Parsed registered keys, shared by every login through this service.
    let keys = DevicePublicKeyCache()

    var policy: DeviceKeyPolicy { settings.deviceKeys }

    /// Checks the assertion and, when it holds, completes the login through the coordinator.
    /// - Throws: 403 `invalid_grant` naming the failed rule, `user is blocked`, or 400 for a
    ///   missing parameter. Every refusal is audited.
    public func finish(_ assertion: DeviceKeyAssertion, request: TokenGrantRequest, ip: String?) async throws -> TokenResponse {
        try request.application.requireGrant(GrantType.jwtBearer)
        let user: User
        do {
            let (owner, claim) = try await verify(assertion, application: request.application)
            user = try await record(owner, claim: claim, request: request, ip: ip)
        } catch let refusal as DeviceKeyRefusal {
            // Aggregated by reason: a flood of assertions naming unknown kids is one row a minute.
            let reason = "\(assertion.method): \(refusal.reason.rawValue)"
            await coordinator.auditRefusal(
                .deviceKeyRefused, user: refusal.userID, client: request.application.clientID, ip: ip, reason: reason,
                detail: reason + (refusal.detail.map { " (\($0))" } ?? ""))
            throw refusal.error
        }
        return try await coordinator.issueTokens(for: user, request: request, authTime: clock.now())
    }

    /// Every rule, in an order where nothing from the token is trusted before its signature is
    /// checked; the assertion's single-use id is left to claim with the login's record.
    func verify(_ assertion: DeviceKeyAssertion, application: Application) async throws -> (User, ReplayClaim) {
        let (jwt, credential, stored) = try await locate(assertion, application: application)
        do {
            let user = try await owner(stored, of: credential, assertion: assertion)
            try checkSignature(jwt, credential: credential)
            try checkClaims(jwt.claims, credential: credential, assertion: assertion)
            return (user, try await consume(jwt, credential: credential, assertion: assertion, application: application))
        } catch var refusal as DeviceKeyRefusal {
            refusal.userID = refusal.userID ?? credential.userID
            throw refusal
        }
    }

    /// Records the login only if its assertion id is still unused, in one storage write: a
    /// replay, even one racing the first use on another instance, is refused and records nothing.
    private func record(_ user: User, claim: ReplayClaim, request: TokenGrantRequest, ip: String?) async throws -> User {
        let now = clock.now()
        let audit = coordinator.loginAudit(method: .deviceKey, clientID: request.application.clientID, ip: ip, at: now)
        guard
            let recorded = try await storage.recordLogin(
                user, at: now, audit: audit, claimingAssertionID: claim.hash, expiresAt: claim.expiresAt)
        else { throw DeviceKeyRefusal(.replayed, userID: user.userID) }
        return try await coordinator.recorded(recorded, audit: audit)
    }

    /// Finds the device credential the assertion claims, and checks it belongs to the user the
    /// assertion names and to this application. Returns the credential's stored owner too (nil
    /// when the user no longer exists), read with the credential where the assertion names both.
    func locate(_ assertion: DeviceKeyAssertion, application: Application) async throws
        -> (DeviceJWT, DeviceCredential, User?)
    {
        switch assertion {
        case .bearer(let token):
            guard let token else { throw SesameError.invalidRequest("Missing required parameter: assertion") }
            let jwt = try DeviceJWT.parse(token)
            guard let kid = jwt.header.kid else { throw DeviceKeyRefusal(.missingKID) }
            // The user `sub` names is read beside the key, and is its owner only once the key is
            // found to be that user's (a `sub` that names no user reads no user).
            let claimed = jwt.claims.sub.flatMap(User.parse(userID:))?.id ?? ""
            guard let (credential, owner) = try await storage.deviceCredential(id: kid, withUser: claimed) else {
                throw DeviceKeyRefusal(.unknownDevice, userID: jwt.claims.sub, detail: "kid \(kid)")
            }
            // Attack: a key registered by user A presented with sub = user B.
            guard jwt.claims.sub == credential.userID else {
                throw DeviceKeyRefusal(.wrongUser, userID: jwt.claims.sub, detail: "key of \(credential.userID)")
            }
            return (jwt, try checkApplication(credential, application), owner)
        case .legacy(let token, let device, _):
            guard let token else { throw SesameError.invalidRequest("missing id_token parameter") }
            guard let device else { throw SesameError.invalidRequest("missing device parameter") }
            let jwt = try DeviceJWT.parse(token)
            guard let userID = jwt.claims.iss else { throw DeviceKeyRefusal(.unknownDevice, detail: "no iss") }
            let candidates = try await storage.deviceCredentials(userID: userID, clientID: application.clientID)
            guard
                let credential = candidates.first(where: { $0.deviceID == device })
                    ?? candidates.first(where: { $0.deviceName == device })
            else { throw DeviceKeyRefusal(.unknownDevice, userID: userID, detail: "device \(device)") }
            if let kid = jwt.header.kid, kid != credential.id { throw DeviceKeyRefusal(.unknownDevice, userID: userID) }
            guard let (_, ownerID) = User.parse(userID: credential.userID) else { return (jwt, credential, nil) }
            return (jwt, credential, try await storage.user(id: ownerID))
        }
    }

    private func checkApplication(_ credential: DeviceCredential, _ application: Application) throws -> DeviceCredential {
        // A key is registered for one application; another application cannot sign in with it.
        guard credential.clientID == application.clientID else {
            throw DeviceKeyRefusal(.wrongApplication, userID: credential.userID, detail: "registered for \(credential.clientID)")
        }
        return credential
    }

    /// The live owner of the credential (`stored`, as ``locate(_:application:)`` read it); a
    /// deleted or blocked user is refused at once.
    private func owner(_ stored: User?, of credential: DeviceCredential, assertion: DeviceKeyAssertion) async throws
        -> User
    {
        guard let user = stored else { throw DeviceKeyRefusal(.unknownDevice, detail: "owner no longer exists") }
        guard !user.blocked else {
            await coordinator.audit(
                .loginRefused, user: user.userID, client: credential.clientID,
                detail: "\(LoginMethod.deviceKey.rawValue): user is blocked")
            throw SesameError.userBlocked
        }
        if case .legacy(_, _, let connection?) = assertion, connection != user.connection {
            throw DeviceKeyRefusal(.wrongConnection, detail: "connection \(connection)")
        }
        return user
    }
}
