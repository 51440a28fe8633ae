public import Foundation

/// An issued authorization code (the one a magic-link redirect carries), stored by HMAC.
public struct AuthorizationCode: Sendable, Codable, Equatable {
    public var codeHash: [UInt8]
    public var clientID: String
    public var userID: String
    public var redirectURI: String
    public var scope: String
    public var nonce: String?
    public var audience: String?
    /// PKCE S256 challenge (RFC 7636), when the client sent one.
    public var codeChallenge: String?
    public var createdAt: Date
    public var expiresAt: Date
    /// When the person last proved who they are: now for a fresh login, earlier for a code
    /// from a browser session (`auth_time`). Nil on codes stored before sessions existed.
    public var authTime: Date?
    /// Whether the user's address was proven when the code was issued: a refresh token is
    /// given for it only then, whatever happened before the exchange. Nil on codes stored
    /// before this was recorded (the user's state at the exchange decides).
    public var identifierVerified: Bool?
    /// The login (refresh-token family) the code's exchange started, recorded as the code is
    /// consumed, so a second presentation of the code can end that login (RFC 6749 §4.1.2).
    public var familyID: String?
    /// The browser session the code was issued from, which the id_token names as `sid` so a
    /// back- or front-channel logout can name the session the application knows.
    public var sessionID: String?
    /// The DPoP key the exchange must prove (`dpop_jkt` at `/authorize`, RFC 9449 §10).
    public var dpopThumbprint: String?

    /// Creates an authorization code record.
    public init(
        codeHash: [UInt8], clientID: String, userID: String, redirectURI: String, scope: String, nonce: String?,
        audience: String?, codeChallenge: String?, createdAt: Date, expiresAt: Date, authTime: Date? = nil,
        identifierVerified: Bool? = nil, familyID: String? = nil
    ) {
        self.authTime = authTime
        self.identifierVerified = identifierVerified
        self.familyID = familyID
        self.codeHash = codeHash
        self.clientID = clientID
        self.userID = userID
        self.redirectURI = redirectURI
        self.scope = scope
        self.nonce = nonce
        self.audience = audience
        self.codeChallenge = codeChallenge
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A refresh token, stored by HMAC. Tokens descending from one login share a `familyID`;
/// presenting a rotated token again revokes the whole family (OAuth 2.1 §4.3.1).
public struct RefreshToken: Sendable, Codable, Equatable {
    public var id: String
    public var familyID: String
    public var tokenHash: [UInt8]
    public var clientID: String
    public var userID: String
    public var scope: String
    public var audience: String?
    public var createdAt: Date
    public var expiresAt: Date
    public var rotatedAt: Date?
    public var revokedAt: Date?
    /// When the person authenticated for the login that started the family; every token of
    /// the family keeps it (OIDC Core §2 `auth_time`, which `max_age` is checked against).
    public var authTime: Date
    /// When a rotation of this token was retried within the reuse interval (allowed once).
    public var retriedAt: Date?
    /// The DPoP key (JWK thumbprint) a public client's token is bound to: only a proof made
    /// with that key can spend it (RFC 9449 §5).
    public var dpopThumbprint: String?

    /// Creates a refresh token record; without `authTime` the login happened at `createdAt`.
    public init(
        id: String, familyID: String, tokenHash: [UInt8], clientID: String, userID: String, scope: String,
        audience: String?, createdAt: Date, expiresAt: Date, rotatedAt: Date? = nil, revokedAt: Date? = nil,
        authTime: Date? = nil, retriedAt: Date? = nil
    ) {
        self.id = id
        self.familyID = familyID
        self.tokenHash = tokenHash
        self.clientID = clientID
        self.userID = userID
        self.scope = scope
        self.audience = audience
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.rotatedAt = rotatedAt
        self.revokedAt = revokedAt
        self.authTime = authTime ?? createdAt
        self.retriedAt = retriedAt
    }
}

/// The outcome of presenting a refresh token for rotation.
public enum RefreshRotation: Sendable, Equatable {
    /// The token was live; it is now rotated and `replacement` is stored in its family.
    case rotated(previous: RefreshToken)
    /// The token was rotated moments ago (within the reuse interval), its replacement is still
    /// unused, and this is the one retry allowed: the caller answers with that replacement
    /// again (a client whose response was lost retries with the same token).
    case retried(previous: RefreshToken)
    /// The token had already been rotated or revoked: its family is now revoked.
    case reused(familyID: String)
    /// No live token has this hash.
    case unknown
    /// The token is bound to a DPoP key other than the one presented: nothing was spent,
    /// rotated or revoked.
    case boundToAnotherKey
}

/// Which tokens a rotation may spend, by the DPoP key they are bound to.
public enum RefreshKeyRequirement: Sendable, Equatable {
    /// Any token: a confidential client's tokens are never bound (its credentials bind them).
    case any
    /// A token that is unbound or bound to this key; nil when the request proved no key. A
    /// token bound to another key is answered ``RefreshRotation/boundToAnotherKey``, so a thief
    /// without the key can neither spend it nor, by presenting a rotated one, revoke its family.
    case presented(String?)
}
