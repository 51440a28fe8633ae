public import Foundation
import SesameAPI
import SesameWebAuthn

/// Mints the tokens every login ends with: the RS256 id_token, the access token (opaque, or
/// a JWT for a registered API audience) and, with `offline_access`, a refresh token.
public struct TokenIssuer: Sendable {
    let keys: KeyRing
    let hasher: SecretHasher
    let settings: LoginSettings
    let storage: any GrantRepository & AccessControlRepository
    let random: any RandomSource

    /// Creates an issuer.
    public init(
        keys: KeyRing, hasher: SecretHasher, settings: LoginSettings, storage: any GrantRepository & AccessControlRepository,
        random: any RandomSource
    ) {
        self.keys = keys
        self.hasher = hasher
        self.settings = settings
        self.storage = storage
        self.random = random
    }

    /// Issues tokens for `user`.
    /// - Parameters:
    ///   - authTime: when the person authenticated (kept across refreshes).
    ///   - refreshToken: a refresh token already stored for this response (rotation), or nil
    ///     to start a new family when `offline_access` is granted.
    ///   - familyID: the login the tokens belong to; nil starts a new one.
    ///   - refreshAllowed: false when the login may not start a refresh-token family whatever
    ///     the user is now (a code issued while the address was unproven).
    ///   - namesFamily: whether the access token names the family even without a refresh
    ///     token, so it can be revoked with it (a code exchange, which a replay revokes).
    public func issue(
        for user: User, _ request: TokenGrantRequest, authTime: Date, now: Date, refreshToken: String? = nil,
        familyID: String? = nil, refreshAllowed: Bool = true, namesFamily: Bool = false
    ) async throws -> TokenResponse {
        let api = try await api(for: request.audience)
        var request = request
        var access: APIAccess?
        if let api { access = try await self.access(to: api, for: user, requested: request.scope) }
        let login = IssuedLogin(familyID: familyID ?? random.orderedHex(at: now), authTime: authTime, now: now)
        let idToken = request.scope.contains("openid") ? try await idToken(user, request, login) : nil
        // The refresh token keeps the scope asked for, so each refresh decides afresh what
        // the user's roles grant; the tokens carry what they grant now.
        var refresh = refreshToken
        if refresh == nil, refreshAllowed, api?.allowOfflineAccess ?? true, wantsRefreshToken(request, for: user) {
            refresh = try await storeRefreshToken(for: user, request, login).secret
        }
        if let access { request.scope = access.scope }
        // Only a login with a refresh-token family (or a code exchange, which a replay of the
        // code revokes) can be revoked as a family; naming one in the access token otherwise
        // would cost a database read on every use for nothing.
        let family = refresh != nil || namesFamily ? login.familyID : nil
        let (accessToken, lifetime) = try await accessToken(user, request, login, family: family, api: api, access: access)
        // The answer says what was granted: `offline_access` only with a refresh token to show for it.
        let granted = refresh == nil ? request.scope.removing("offline_access") : request.scope
        var response = TokenResponse(
            accessToken: accessToken, expiresIn: lifetime, idToken: idToken, refreshToken: refresh,
            scope: granted.description)
        if request.dpopThumbprint != nil { response.tokenType = "DPoP" }
        return response
    }

    /// Whether a response to `request` for `user` carries a refresh token. An account whose
    /// address is unproven (a passkey signup) gets none: whoever made it may not own the
    /// address, and a refresh token would outlast the owner's first verification.
    public func wantsRefreshToken(_ request: TokenGrantRequest, for user: User) -> Bool {
        wantsRefreshToken(request) && user.identifierVerified
    }

    /// Whether a response to `request` carries a refresh token.
    public func wantsRefreshToken(_ request: TokenGrantRequest) -> Bool {
        request.scope.contains("offline_access") && request.application.allows(GrantType.refreshToken)
    }

    /// A new refresh token record and its secret (only the HMAC is stored).
    public func newRefreshToken(
        for userID: String, _ request: TokenGrantRequest, familyID: String, now: Date
    ) -> (secret: String, record: RefreshToken) {
        let secret = random.token(32)
        let hash = hasher.hash(secret, purpose: .refreshToken)
        return (secret, refreshTokenRecord(hash: hash, for: userID, request, familyID: familyID, now: now))
    }

    /// The record of a new refresh token whose secret has the HMAC `hash` (a rotation derives
    /// its replacement's secret, so it has the hash already and draws no secret of its own).
    func refreshTokenRecord(
        hash: [UInt8], for userID: String, _ request: TokenGrantRequest, familyID: String, now: Date
    ) -> RefreshToken {
        var record = RefreshToken(
            id: random.orderedHex(at: now), familyID: familyID, tokenHash: hash,
            clientID: request.application.clientID, userID: userID, scope: request.scope.description,
            audience: request.audience, createdAt: now,
            expiresAt: now.addingTimeInterval(Double(settings.refreshTokenLifetime)))
        // A confidential client's refresh token is already bound to its credentials (RFC 9449 §5).
        if !request.application.isConfidential { record.dpopThumbprint = request.dpopThumbprint }
        return record
    }

    private func storeRefreshToken(
        for user: User, _ request: TokenGrantRequest, _ login: IssuedLogin
    ) async throws -> (secret: String, record: RefreshToken) {
        var token = newRefreshToken(for: user.userID, request, familyID: login.familyID, now: login.now)
        token.record.authTime = login.authTime
        try await storage.createRefreshToken(token.record)
        return token
    }

    /// What `user` may have of `api` now (``APIAccess``).
    func access(to api: ResourceServer, for user: User, requested: Scope) async throws -> APIAccess {
        try await APIAccess.decide(for: api, requested: requested) { [storage] in
            try await storage.effectivePermissions(userID: user.userID, audience: api.identifier).map(\.permission.permissionName)
        }
    }

    /// The API an `audience` names (``AccessControlRepository/api(named:settings:)``); nil for none.
    func api(for audience: String?) async throws -> ResourceServer? {
        guard let audience else { return nil }
        return try await storage.api(named: audience, settings: settings)
    }

    private func idToken(_ user: User, _ request: TokenGrantRequest, _ login: IssuedLogin) async throws -> String {
        let now = login.now.epochSeconds
        var claims = IDTokenClaims(
            iss: settings.issuer, aud: request.application.clientID, iat: now, exp: now + Int64(settings.idTokenLifetime),
            authTime: login.authTime.epochSeconds, nonce: request.nonce, profile: UserInfo(user: user, scope: request.scope),
            sid: request.sessionID)
        // Operators' facts about the user (a plan, roles) for apps, under a namespaced claim
        // so they can never collide with a standard one.
        if let name = settings.appMetadataClaim, let metadata = user.appMetadata, !metadata.isEmpty {
            claims.extra[name] = .object(metadata)
        }
        return try await keys.signer().sign(claims)
    }

    /// The access token and its lifetime: opaque (checked by Sesame on every use), or an
    /// RFC 9068 JWT for an API (checked offline by the API, living as long as the API says).
    /// - Parameter family: the refresh-token family the token dies with, when there is one.
    private func accessToken(
        _ user: User, _ request: TokenGrantRequest, _ login: IssuedLogin, family: String?, api: ResourceServer?,
        access: APIAccess?
    ) async throws -> (token: String, lifetime: Int) {
        let now = login.now.epochSeconds
        guard let api else {
            let lifetime = settings.accessTokenLifetime
            let token = try OpaqueAccessToken(
                sub: user.userID, cid: request.application.clientID, scp: request.scope.description, iat: now,
                exp: now + Int64(lifetime), jti: random.token(9), fid: family, ath: login.authTime.epochSeconds,
                iam: login.now.epochMilliseconds, jkt: request.dpopThumbprint
            ).encode(with: hasher)
            return (token, lifetime)
        }
        let lifetime = api.lifetime(for: request.application)
        // Auth0 adds `/userinfo` to `aud` only when the login asked for `openid`.
        let audience = request.scope.contains("openid") ? [api.identifier, settings.issuer + "userinfo"] : [api.identifier]
        var claims = AccessTokenClaims(
            iss: settings.issuer, sub: user.userID, aud: audience, azp: request.application.clientID, iat: now,
            exp: now + Int64(lifetime), scope: request.scope.description, jti: random.token(9),
            authTime: login.authTime.epochSeconds, sid: family)
        claims.permissions = access?.permissions
        claims.cnf = request.dpopThumbprint.map(DPoPConfirmation.init(jkt:))
        return (try await keys.signer().sign(claims, type: "at+jwt"), lifetime)
    }
}

/// The login a set of tokens is issued for.
struct IssuedLogin {
    /// The refresh-token family (also when no refresh token is issued).
    let familyID: String
    let authTime: Date
    let now: Date
}
