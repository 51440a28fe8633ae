import Crypto
import Foundation
import SesameAPI

/// The grants that continue a login: refresh-token rotation, the authorization-code
/// exchange (with PKCE), revocation and `/userinfo`.
public struct TokenService: Sendable {
    let storage: any SesameStorage
    let issuer: TokenIssuer
    let coordinator: LoginCoordinator
    let clock: any SesameClock

    /// Creates the service.
    init(storage: any SesameStorage, issuer: TokenIssuer, coordinator: LoginCoordinator, clock: any SesameClock) {
        self.storage = storage
        self.issuer = issuer
        self.coordinator = coordinator
        self.clock = clock
    }

    var hasher: SecretHasher { issuer.hasher }

    /// `grant_type=refresh_token`: rotates the token and issues new tokens. Presenting a
    /// token that was already rotated revokes its whole family (a stolen token was used),
    /// except one retry within the reuse interval, which gets the same replacement again.
    /// - Parameter scope: an optional narrower scope; it may not widen the original.
    /// - Parameter dpopThumbprint: the DPoP key the request proved; a token bound to a key
    ///   needs a proof by that key, and the new tokens are bound to it.
    /// - Parameter audience: the My Account API gets the new access token for it instead of the
    ///   login's API (Auth0.swift's `apiCredentials(forAudience:scope:)`), and its scopes may be
    ///   added; any other audience is ignored, as it always was. The refresh token keeps its own
    ///   audience and scope.
    public func refresh(
        _ token: String?, application: Application, scope: String?, dpopThumbprint: String? = nil,
        audience: String? = nil
    ) async throws -> TokenResponse {
        try application.requireGrant(GrantType.refreshToken)
        guard let token else { throw SesameError.invalidRequest("Missing required parameter: refresh_token") }
        let now = clock.now()
        // The replacement's secret is derived from the presented one under the server key, so
        // a retry of this rotation can answer with the same replacement without storing it.
        let secret = Base64URL.encode(hasher.hash(token, purpose: .refreshRotation))
        let hash = hasher.hash(secret, purpose: .refreshToken)
        let template = issuer.refreshTokenRecord(
            hash: hash, for: "", TokenGrantRequest(application: application, scope: Scope(nil)), familyID: "", now: now)
        let (outcome, owner) = try await storage.rotateRefreshTokenReadingUser(
            hashes: hasher.candidates(token, purpose: .refreshToken), clientID: application.clientID, at: now,
            reuseInterval: issuer.settings.refreshReuseInterval,
            // A thief without the key must not spend (and so revoke) the token. A confidential
            // client's tokens are never bound (its credentials bind them).
            key: application.isConfidential ? .any : .presented(dpopThumbprint)
        ) { previous in
            var next = template
            (next.familyID, next.userID, next.scope, next.audience, next.authTime) =
                (previous.familyID, previous.userID, previous.scope, previous.audience, previous.authTime)
            // The heir stays bound to the family's key through every rotation.
            next.dpopThumbprint = previous.dpopThumbprint
            return next
        }
        switch outcome {
        case .unknown:
            throw SesameError.invalidGrant("Unknown or invalid refresh token.")
        case .boundToAnotherKey:
            throw SesameError.invalidGrant(
                "Unknown or invalid refresh token.", logDetail: "refresh token bound to another DPoP key")
        case .reused(let family):
            await coordinator.audit(.refreshTokenReuse, client: application.clientID, detail: "family \(family) revoked")
            throw SesameError.invalidGrant("Unknown or invalid refresh token.", logDetail: "reuse of a rotated token")
        case .retried(let previous):
            await coordinator.audit(
                .refreshTokenRetry, user: previous.userID, client: application.clientID,
                detail: "family \(previous.familyID): rotation retried within the reuse interval")
            return try await reissue(
                previous, owner: owner, application: application, scope: scope, audience: audience,
                refreshToken: secret, now: now, key: dpopThumbprint)
        case .rotated(let previous):
            return try await reissue(
                previous, owner: owner, application: application, scope: scope, audience: audience,
                refreshToken: secret, now: now, key: dpopThumbprint)
        }
    }

    /// The new tokens of a rotation that spent `previous`, for its user `owner` as the rotation read it.
    private func reissue(
        _ previous: RefreshToken, owner: User?, application: Application, scope: String?, audience: String?,
        refreshToken: String, now: Date, key: String?
    ) async throws -> TokenResponse {
        let granted = Scope(previous.scope)
        let requested = scope == nil ? granted : Scope(scope)
        var beyond = requested
        beyond.remove(where: granted.contains)
        let forMyAccount = issuer.settings.isMyAccountAudience(audience)
        // As Auth0's refresh-token policy for the My Account API: its own scopes may be asked for here.
        if forMyAccount { beyond.remove(where: MyAccountScopes.all.contains) }
        guard beyond.names.isEmpty else {
            throw SesameError(.forbidden, .invalidScope, "The requested scope exceeds the scope originally granted.")
        }
        let user = try Self.live(owner)
        var request = TokenGrantRequest(
            application: application, scope: requested, audience: forMyAccount ? audience : previous.audience)
        request.dpopThumbprint = key
        return try await issuer.issue(
            for: user, request, authTime: previous.authTime, now: now, refreshToken: refreshToken,
            familyID: previous.familyID)
    }

    /// `POST /oauth/revoke`: revokes the refresh token's family. Unknown tokens are not an
    /// error (RFC 7009 §2.2), so the answer reveals nothing.
    public func revoke(_ token: String?, application: Application) async throws {
        guard let token else { throw SesameError.invalidRequest("Missing required parameter: token") }
        _ = try await storage.revokeRefreshToken(
            hashes: hasher.candidates(token, purpose: .refreshToken), clientID: application.clientID, at: clock.now())
    }

    /// The stored user behind a token, refusing deleted and blocked users.
    func liveUser(_ userID: String) async throws -> User {
        guard let (_, id) = User.parse(userID: userID) else { return try Self.live(nil) }
        return try Self.live(try await storage.user(id: id))
    }

    /// `user` as read for a token, refused when it no longer exists (nil) or is blocked.
    static func live(_ user: User?) throws -> User {
        guard let user else {
            throw SesameError.invalidGrant("The refresh_token was generated for a user who doesn't exist anymore.")
        }
        guard !user.blocked else { throw SesameError.userBlocked }
        return user
    }
}
