import SesameAPI

/// A user in Auth0's Management API shape (`/api/v2/users`).
struct ManagementUserBody: Codable, Sendable, Equatable {
    /// One way the user signs in.
    struct Identity: Codable, Sendable, Equatable {
        var connection: String
        var userID: String
        var provider: String
        var isSocial: Bool

        enum CodingKeys: String, CodingKey {
            case connection, provider, isSocial
            case userID = "user_id"
        }

        /// Creates an identity.
        init(connection: String, userID: String, provider: String) {
            (self.connection, self.userID, self.provider, self.isSocial) = (connection, userID, provider, false)
        }
    }

    var userID: String
    var email: String?
    var emailVerified: Bool?
    var phoneNumber: String?
    var phoneVerified: Bool?
    var name: String
    var givenName: String?
    var familyName: String?
    var nickname: String
    var picture: String?
    var createdAt: String
    var updatedAt: String
    var lastLogin: String?
    var loginsCount: Int
    var blocked: Bool
    var userMetadata: [String: JSONValue]
    var appMetadata: [String: JSONValue]
    var identities: [Identity]

    enum CodingKeys: String, CodingKey {
        case email, name, nickname, picture, blocked, identities
        case userID = "user_id", emailVerified = "email_verified", phoneNumber = "phone_number"
        case phoneVerified = "phone_verified", createdAt = "created_at", updatedAt = "updated_at"
        case lastLogin = "last_login", loginsCount = "logins_count", userMetadata = "user_metadata"
        case appMetadata = "app_metadata", givenName = "given_name", familyName = "family_name"
    }

    /// Creates a body; the caller fills the fields.
    init(userID: String, name: String, nickname: String, picture: String?, createdAt: String, updatedAt: String) {
        self.userID = userID
        self.name = name
        self.nickname = nickname
        self.picture = picture
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.loginsCount = 0
        self.blocked = false
        self.userMetadata = [:]
        self.appMetadata = [:]
        self.identities = []
    }
}

/// A page of users with totals (`include_totals=true`).
struct ManagementUserPageBody: Codable, Sendable, Equatable {
    var start: Int
    var limit: Int
    var length: Int
    var total: Int
    var users: [ManagementUserBody]

    /// Creates a page.
    init(start: Int, limit: Int, total: Int, users: [ManagementUserBody]) {
        (self.start, self.limit, self.length, self.total, self.users) = (start, limit, users.count, total, users)
    }
}

/// An application in Auth0's Management API shape (`/api/v2/clients`).
struct ClientBody: Codable, Sendable, Equatable {
    var clientID: String
    var name: String
    /// `native`, `spa` or `regular_web`.
    var appType: String
    var callbacks: [String]
    var allowedLogoutURLs: [String]
    var allowedOrigins: [String]
    var webOrigins: [String]
    var logoURI: String?
    var grantTypes: [String]
    /// `none` for applications, `client_secret_post` for confidential ones.
    var tokenEndpointAuthMethod: String
    /// Only in the answer that created the application.
    var clientSecret: String?
    /// OpenID Connect Back-Channel Logout's name for the URI, and Auth0's (`oidc_logout`).
    var backchannelLogoutURI: String?
    var frontchannelLogoutURI: String?
    var oidcLogout: OIDCLogoutBody?

    enum CodingKeys: String, CodingKey {
        case name, callbacks
        case clientID = "client_id", appType = "app_type", allowedLogoutURLs = "allowed_logout_urls"
        case allowedOrigins = "allowed_origins", webOrigins = "web_origins", logoURI = "logo_uri"
        case grantTypes = "grant_types", tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case clientSecret = "client_secret", backchannelLogoutURI = "backchannel_logout_uri"
        case frontchannelLogoutURI = "frontchannel_logout_uri", oidcLogout = "oidc_logout"
    }

    /// Creates a body.
    init(
        clientID: String, name: String, appType: String, callbacks: [String], allowedLogoutURLs: [String],
        allowedOrigins: [String], logoURI: String?, grantTypes: [String], tokenEndpointAuthMethod: String,
        clientSecret: String?
    ) {
        self.clientID = clientID
        self.name = name
        self.appType = appType
        self.callbacks = callbacks
        self.allowedLogoutURLs = allowedLogoutURLs
        self.allowedOrigins = allowedOrigins
        self.webOrigins = allowedOrigins
        self.logoURI = logoURI
        self.grantTypes = grantTypes
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.clientSecret = clientSecret
    }
}

/// Auth0's `oidc_logout` of a client: where back-channel logout tokens go.
struct OIDCLogoutBody: Codable, Sendable, Equatable {
    var backchannelLogoutURLs: [String]

    enum CodingKeys: String, CodingKey {
        case backchannelLogoutURLs = "backchannel_logout_urls"
    }
}

/// A page with totals (`include_totals=true`) in Auth0's shape, its list under the name of
/// what it lists: `{start, limit, length, total, clients: […]}`, `{…, logs: […]}`.
struct ManagementPageBody<Item: Encodable & Sendable>: Encodable, Sendable {
    var start: Int
    var limit: Int
    var total: Int
    /// The list's member name (`clients`, `logs`, `client_grants`).
    var key: String
    var items: [Item]

    private struct Key: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(start, forKey: Key("start"))
        try container.encode(limit, forKey: Key("limit"))
        try container.encode(items.count, forKey: Key("length"))
        try container.encode(total, forKey: Key("total"))
        try container.encode(items, forKey: Key(key))
    }
}
