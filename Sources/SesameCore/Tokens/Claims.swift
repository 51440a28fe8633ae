import Foundation
public import JWTKit
public import SesameAPI

/// The claims of an id_token (OIDC Core §2), with the profile claims the scope releases
/// flattened into the same object (the ``UserInfo`` that `/userinfo` answers; its `sub` is the
/// token's subject). Profile claims read through it: `claims.email`.
@dynamicMemberLookup
public struct IDTokenClaims: JWTPayload, Equatable {
    public var iss: String
    public var aud: String
    public var iat: Int64
    public var exp: Int64
    public var authTime: Int64?
    public var nonce: String?
    public var azp: String?
    public var sid: String?
    /// The subject and the profile claims.
    public var profile: UserInfo
    /// Namespaced claims an operator configured (`tokens.app_metadata_claim`), by name.
    public var extra: [String: JSONValue] = [:]

    /// The subject: the user's Auth0 `user_id`.
    public var sub: String { profile.sub }

    /// A profile claim (`email`, `name`, …).
    public subscript<Value>(dynamicMember keyPath: KeyPath<UserInfo, Value>) -> Value { profile[keyPath: keyPath] }

    /// Creates id_token claims around `profile`.
    public init(
        iss: String, aud: String, iat: Int64, exp: Int64, authTime: Int64?, nonce: String?, profile: UserInfo,
        azp: String? = nil, sid: String? = nil
    ) {
        self.iss = iss
        self.aud = aud
        self.iat = iat
        self.exp = exp
        self.authTime = authTime
        self.nonce = nonce
        self.azp = azp
        self.sid = sid
        self.profile = profile
    }

    enum CodingKeys: String, CodingKey {
        case iss, aud, iat, exp, nonce, azp, sid
        case authTime = "auth_time"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decode(String.self, forKey: .iss)
        aud = try container.decode(String.self, forKey: .aud)
        iat = try container.decode(Int64.self, forKey: .iat)
        exp = try container.decode(Int64.self, forKey: .exp)
        authTime = try container.decodeIfPresent(Int64.self, forKey: .authTime)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        azp = try container.decodeIfPresent(String.self, forKey: .azp)
        sid = try container.decodeIfPresent(String.self, forKey: .sid)
        profile = try UserInfo(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(iss, forKey: .iss)
        try container.encode(aud, forKey: .aud)
        try container.encode(iat, forKey: .iat)
        try container.encode(exp, forKey: .exp)
        try container.encodeIfPresent(authTime, forKey: .authTime)
        try container.encodeIfPresent(nonce, forKey: .nonce)
        try container.encodeIfPresent(azp, forKey: .azp)
        try container.encodeIfPresent(sid, forKey: .sid)
        try profile.encode(to: encoder)
        var extraContainer = encoder.container(keyedBy: ClaimName.self)
        for (name, value) in extra { try extraContainer.encode(value, forKey: ClaimName(name)) }
    }

    /// A claim named at run time.
    struct ClaimName: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// Signing only; Sesame never accepts its own id_tokens as credentials.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension IDTokenClaims: DirectJSONEncodable {
    /// The claims without `JSONEncoder`: one id_token is signed per login and refresh. Nil
    /// when operator-configured claims are present; `JSONEncoder` writes those.
    public func directJSON() -> [UInt8]? {
        guard extra.isEmpty else { return nil }
        var json = JSONObjectWriter()
        json.add("iss", iss)
        json.add("aud", aud)
        json.add("iat", iat)
        json.add("exp", exp)
        json.add("auth_time", authTime)
        json.add("nonce", nonce)
        json.add("azp", azp)
        json.add("sid", sid)
        profile.write(to: &json)
        return json.finish()
    }
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
    /// The API permissions the user holds, for an API whose dialect is `access_token_authz`.
    public var permissions: [String]?
    /// RFC 9449 §6.1: the DPoP key the token is bound to.
    public var cnf: DPoPConfirmation?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, azp, iat, exp, scope, gty, jti, sid, permissions, cnf
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
