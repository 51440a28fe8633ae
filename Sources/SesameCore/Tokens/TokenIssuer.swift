import Foundation

/// Mints the tokens every login ends with: the RS256 id_token, the access token (opaque, or
/// a JWT for a registered API audience) and, with `offline_access`, a refresh token.
public struct TokenIssuer: Sendable {
    let keys: KeyRing
    let hasher: SecretHasher
    let settings: LoginSettings
    let storage: any GrantRepository
    let random: any RandomSource

    /// Creates an issuer.
    public init(
        keys: KeyRing, hasher: SecretHasher, settings: LoginSettings, storage: any GrantRepository,
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
    ///   - refreshToken: a refresh token already stored for this response (rotation), or nil
    ///     to start a new family when `offline_access` is granted.
    public func issue(
        for user: User, _ request: TokenGrantRequest, authTime: Date, now: Date, refreshToken: String? = nil
    ) async throws -> TokenResponse {
        try checkAudience(request.audience)
        let idToken = request.scope.contains("openid") ? try await idToken(user, request, authTime: authTime, now: now) : nil
        var refresh = refreshToken
        if refresh == nil, wantsRefreshToken(request) {
            refresh = try await storeRefreshToken(for: user, request, familyID: random.hex(12), now: now).secret
        }
        return TokenResponse(
            accessToken: try await accessToken(user, request, now: now), expiresIn: settings.accessTokenLifetime,
            idToken: idToken, refreshToken: refresh, scope: request.scope.description)
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
        let record = RefreshToken(
            id: random.hex(12), familyID: familyID, tokenHash: hasher.hash(secret, purpose: .refreshToken),
            clientID: request.application.clientID, userID: userID, scope: request.scope.description,
            audience: request.audience, createdAt: now,
            expiresAt: now.addingTimeInterval(Double(settings.refreshTokenLifetime)))
        return (secret, record)
    }

    private func storeRefreshToken(
        for user: User, _ request: TokenGrantRequest, familyID: String, now: Date
    ) async throws -> (secret: String, record: RefreshToken) {
        let token = newRefreshToken(for: user.userID, request, familyID: familyID, now: now)
        try await storage.createRefreshToken(token.record)
        return token
    }

    private func checkAudience(_ audience: String?) throws {
        guard let audience, !settings.audiences.contains(audience) else { return }
        throw SesameError.accessDenied("Service not found: \(audience)")
    }

    private func idToken(_ user: User, _ request: TokenGrantRequest, authTime: Date, now: Date) async throws -> String {
        let profile = UserInfo(user: user, scope: request.scope)
        let claims = IDTokenClaims(
            iss: settings.issuer, sub: user.userID, aud: request.application.clientID, iat: now.epochSeconds,
            exp: now.epochSeconds + Int64(settings.idTokenLifetime), authTime: authTime.epochSeconds,
            nonce: request.nonce, name: profile.name, nickname: profile.nickname, picture: profile.picture,
            updatedAt: profile.updatedAt, email: profile.email, emailVerified: profile.emailVerified,
            phoneNumber: profile.phoneNumber, phoneNumberVerified: profile.phoneNumberVerified)
        return try await keys.signer().sign(claims)
    }

    private func accessToken(_ user: User, _ request: TokenGrantRequest, now: Date) async throws -> String {
        let exp = now.epochSeconds + Int64(settings.accessTokenLifetime)
        guard let audience = request.audience else {
            return try OpaqueAccessToken(
                sub: user.userID, cid: request.application.clientID, scp: request.scope.description,
                iat: now.epochSeconds, exp: exp, jti: random.token(9)
            ).encode(with: hasher)
        }
        let claims = AccessTokenClaims(
            iss: settings.issuer, sub: user.userID, aud: [audience, settings.issuer + "userinfo"],
            azp: request.application.clientID, iat: now.epochSeconds, exp: exp, scope: request.scope.description,
            gty: nil)
        return try await keys.signer().sign(claims)
    }
}
