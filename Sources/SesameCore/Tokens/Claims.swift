import Foundation
import JWTKit

/// The claims of an id_token (OIDC Core §2) plus Auth0's profile claims.
public struct IDTokenClaims: JWTPayload, Equatable {
    public var iss: String
    public var sub: String
    public var aud: String
    public var iat: Int64
    public var exp: Int64
    public var authTime: Int64?
    public var nonce: String?
    public var azp: String?
    public var sid: String?
    public var name: String?
    public var nickname: String?
    public var picture: String?
    public var updatedAt: String?
    public var email: String?
    public var emailVerified: Bool?
    public var phoneNumber: String?
    public var phoneNumberVerified: Bool?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, exp, nonce, azp, sid, name, nickname, picture, email
        case authTime = "auth_time", updatedAt = "updated_at", emailVerified = "email_verified"
        case phoneNumber = "phone_number", phoneNumberVerified = "phone_number_verified"
    }

    /// Signing only; Sesame never accepts its own id_tokens as credentials.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The claims of a JWT access token issued for an API `audience`.
public struct AccessTokenClaims: JWTPayload, Equatable {
    public var iss: String
    public var sub: String
    /// The API identifier and the issuer's `/userinfo`, as Auth0 does.
    public var aud: [String]
    public var azp: String
    public var iat: Int64
    public var exp: Int64
    public var scope: String
    public var gty: String?
    /// RFC 9068 §2.2: `client_id` (the same as `azp`), `jti`, and `auth_time` when known.
    public var clientID: String?
    public var jti: String?
    public var authTime: Int64?
    /// The login (refresh-token family) the token belongs to, so Sesame can refuse it once
    /// that login is revoked.
    public var sid: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, azp, iat, exp, scope, gty, jti, sid
        case clientID = "client_id", authTime = "auth_time"
    }

    /// Creates access-token claims.
    public init(
        iss: String, sub: String, aud: [String], azp: String, iat: Int64, exp: Int64, scope: String, gty: String? = nil,
        jti: String? = nil, authTime: Int64? = nil, sid: String? = nil
    ) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.azp = azp
        self.iat = iat
        self.exp = exp
        self.scope = scope
        self.gty = gty
        self.clientID = azp
        self.jti = jti
        self.authTime = authTime
        self.sid = sid
    }

    /// Expiry is checked by ``TokenService`` against the injected clock, not here.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension SesameError {
    /// 401 `invalid_token`, for `/userinfo` with a bad, expired or revoked token.
    public static let invalidToken = SesameError(.unauthorized, .invalidToken, "The access token is invalid or expired.")
}
