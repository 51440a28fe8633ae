public import Foundation
public import SesameAPI

extension TokenService {
    /// `GET /userinfo`: the profile claims the access token's scope releases.
    /// - Throws: 401 `invalid_token` for a forged, expired, revoked or foreign token, or a
    ///   token of a deleted or blocked user.
    public func userInfo(accessToken: String?) async throws -> UserInfo {
        let grant = try await authenticate(accessToken: accessToken)
        guard grant.scope.contains("openid") else { throw SesameError.invalidToken }
        return UserInfo(user: grant.user, scope: grant.scope)
    }

    /// The live user an access token speaks for, with the token's scope, client and login;
    /// for endpoints where users manage their own account.
    /// - Throws: 401 `invalid_token` as ``userInfo(accessToken:)``.
    public func authenticate(accessToken: String?) async throws -> AccessGrant {
        guard let accessToken else { throw SesameError.invalidToken }
        let token = try await validate(accessToken)
        // A DPoP-bound token sent as Bearer is a stolen one used without its key (RFC 9449 §7.1).
        guard token.dpopThumbprint == nil else {
            throw SesameError(.unauthorized, .invalidToken, "The access token is DPoP-bound: send it as DPoP with a proof.")
                .atResource()
        }
        return try await grant(for: token)
    }

    /// The grant of a validated token: its live user, unless revoked since.
    func grant(for token: ValidatedAccessToken) async throws -> AccessGrant {
        guard let (_, id) = User.parse(userID: token.userID), let user = try await storage.user(id: id), !user.blocked else {
            throw SesameError.invalidToken
        }
        // Tokens minted before the address was first verified belong to whoever held the
        // account while it was unproven (account pre-hijacking).
        if let validAfter = user.tokensValidAfter, token.issuedAtMilliseconds < validAfter.epochMilliseconds {
            throw SesameError.invalidToken
        }
        // Logout, reuse detection or blocking revoked the login: its access tokens end with it.
        if let family = token.familyID, try await storage.isRefreshFamilyRevoked(family) {
            throw SesameError.invalidToken
        }
        return AccessGrant(
            user: user, scope: token.scope, clientID: token.clientID,
            authTime: token.authTime.map { Date(timeIntervalSince1970: Double($0)) }, audience: token.audience)
    }

    /// The claims of a live access token (opaque `sat_…` or a JWT for us).
    /// - Throws: `invalid_token`.
    func validate(_ token: String) async throws -> ValidatedAccessToken {
        let now = clock.now().epochSeconds
        if let opaque = OpaqueAccessToken.decode(token, with: hasher) {
            guard opaque.exp > now else { throw SesameError.invalidToken }
            return ValidatedAccessToken(
                userID: opaque.sub, scope: Scope(opaque.scp), clientID: opaque.cid, familyID: opaque.fid,
                authTime: opaque.ath, issuedAtMilliseconds: opaque.iam ?? opaque.iat * 1000, dpopThumbprint: opaque.jkt,
                audience: nil)
        }
        // A JWT is for us when it names `/userinfo` (a login that asked for `openid`) or the
        // My Account API, whose tokens need not carry `openid`.
        let userinfo = issuer.settings.issuer + "userinfo"
        guard let claims = try? await issuer.keys.signer().verify(token, as: AccessTokenClaims.self),
            claims.exp > now, claims.iss == issuer.settings.issuer,
            claims.aud.contains(userinfo) || claims.aud.contains(issuer.settings.myAccountAudience)
        else { throw SesameError.invalidToken }
        // A JWT says its issue time in whole seconds: counted from the end of that second, so
        // the owner's own token minted in the second of verification still works.
        return ValidatedAccessToken(
            userID: claims.sub, scope: Scope(claims.scope), clientID: claims.azp, familyID: claims.sid,
            authTime: claims.authTime, issuedAtMilliseconds: claims.iat * 1000 + 999, dpopThumbprint: claims.cnf?.jkt,
            audience: claims.aud.first { $0 != userinfo } ?? "")
    }
}

/// What a live access token grants: its user (loaded, not blocked), scope, application and
/// when its login happened.
public struct AccessGrant: Sendable {
    public let user: User
    public let scope: Scope
    public let clientID: String
    /// When the person authenticated; nil for tokens that do not say.
    public let authTime: Date?
    /// The API a JWT access token is for; nil for Sesame's own opaque tokens.
    public let audience: String?

    /// Whether the login is at most `seconds` old at `now`.
    public func isRecent(within seconds: Int, at now: Date) -> Bool {
        guard let authTime else { return false }
        return now.timeIntervalSince(authTime) <= Double(seconds)
    }
}

/// The claims Sesame reads from an access token.
struct ValidatedAccessToken {
    let userID: String
    let scope: Scope
    let clientID: String
    let familyID: String?
    let authTime: Int64?
    let issuedAtMilliseconds: Int64
    /// The DPoP key the token is bound to, if any.
    let dpopThumbprint: String?
    /// The API a JWT is for (nil for an opaque token).
    let audience: String?
}

extension AccessGrant {
    /// Refuses a token that was not granted `scope` (403 `insufficient_scope`).
    public func require(scope name: String) throws {
        guard scope.contains(name) else {
            throw SesameError(
                .forbidden, .insufficientScope, "The access token lacks the scope \(name): ask for it when signing in.")
        }
    }

    /// Refuses a change that needs a recent login (RFC 9470's `insufficient_user_authentication`):
    /// a stolen or long-lived token must not be enough to add or remove a way in.
    public func requireRecentLogin(within seconds: Int, at now: Date) throws {
        guard isRecent(within: seconds, at: now) else {
            throw SesameError(
                .unauthorized, .insufficientUserAuthentication,
                "This change needs a recent login: sign in again (within the last \(max(1, seconds / 60)) minutes).")
        }
    }

    /// Refuses an account whose address is unproven (a passkey signup nobody verified yet):
    /// whoever holds it may not own the address.
    public func requireVerifiedAddress() throws {
        guard user.identifierVerified else {
            throw SesameError(
                .forbidden, .accessDenied,
                "Verify the account's email address or phone number with a one-time code or link first.")
        }
    }
}
