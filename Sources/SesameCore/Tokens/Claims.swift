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

    /// Creates access-token claims.
    public init(
        iss: String, sub: String, aud: [String], azp: String, iat: Int64, exp: Int64, scope: String, gty: String? = nil
    ) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.azp = azp
        self.iat = iat
        self.exp = exp
        self.scope = scope
        self.gty = gty
    }

    /// Expiry is checked by ``TokenService`` against the injected clock, not here.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension SesameError {
    /// 401 `invalid_token`, for `/userinfo` with a bad, expired or revoked token.
    public static let invalidToken = SesameError(.unauthorized, "invalid_token", "The access token is invalid or expired.")
}
