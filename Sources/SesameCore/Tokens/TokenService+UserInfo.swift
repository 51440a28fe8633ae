import Foundation

extension TokenService {
    /// `GET /userinfo`: the profile claims the access token's scope releases.
    /// - Throws: 401 `invalid_token` for a forged, expired or foreign token, or a token of a
    ///   deleted or blocked user.
    public func userInfo(accessToken: String?) async throws -> UserInfo {
        let (user, scope, _) = try await authenticate(accessToken: accessToken)
        guard scope.contains("openid") else { throw SesameError.invalidToken }
        return UserInfo(user: user, scope: scope)
    }

    /// The live user an access token speaks for, with the token's scope and client; for
    /// endpoints where users manage their own account.
    /// - Throws: 401 `invalid_token` as ``userInfo(accessToken:)``.
    public func authenticate(accessToken: String?) async throws -> (user: User, scope: Scope, clientID: String) {
        guard let accessToken else { throw SesameError.invalidToken }
        let (userID, scope, clientID) = try await validate(accessToken)
        guard let (_, id) = User.parse(userID: userID), let user = try await storage.user(id: id), !user.blocked else {
            throw SesameError.invalidToken
        }
        return (user, scope, clientID)
    }

    /// The user, scope and client of a live access token (opaque `sat_…` or a JWT for us).
    /// - Throws: `invalid_token`.
    func validate(_ token: String) async throws -> (userID: String, scope: Scope, clientID: String) {
        let now = clock.now().epochSeconds
        if let opaque = OpaqueAccessToken.decode(token, with: hasher) {
            guard opaque.exp > now else { throw SesameError.invalidToken }
            return (opaque.sub, Scope(opaque.scp), opaque.cid)
        }
        guard let claims = try? await issuer.keys.signer().verify(token, as: AccessTokenClaims.self),
            claims.exp > now, claims.iss == issuer.settings.issuer,
            claims.aud.contains(issuer.settings.issuer + "userinfo")
        else { throw SesameError.invalidToken }
        return (claims.sub, Scope(claims.scope), claims.azp)
    }
}
