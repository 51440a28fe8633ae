/// An application as `sesame admin apps … --json` prints it.
public struct ApplicationBody: Codable, Sendable, Equatable {
    public var clientID: String
    public var clientSecret: String?
    public var name: String
    public var type: String
    public var callbacks: [String]
    public var allowedOrigins: [String]
    public var grantTypes: [String]
    public var iosBundleIDs: [String]
    public var androidPackages: [String]
    public var iosTeamID: String?
    public var androidFingerprints: [String]
    public var isDefault: Bool
    public var createdAt: String
    /// Device-key logins need a `/device-key/challenge` nonce.
    public var deviceKeyNonceRequired: Bool?
    /// Where logout may send the browser.
    public var logoutURLs: [String]?
    /// The logo the hosted pages show.
    public var logoURL: String?
    /// The hosted pages' button colour (`#rrggbb`).
    public var brandColor: String?

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id", clientSecret = "client_secret", name, type, callbacks
        case allowedOrigins = "allowed_origins", grantTypes = "grant_types", iosBundleIDs = "ios_bundle_ids"
        case androidPackages = "android_packages", isDefault = "default", createdAt = "created_at"
        case iosTeamID = "ios_team_id", androidFingerprints = "android_sha256_cert_fingerprints"
        case deviceKeyNonceRequired = "device_key_nonce_required", logoutURLs = "logout_urls"
        case logoURL = "logo_uri", brandColor = "brand_color"
    }

    /// Creates an application body.
    public init(
        clientID: String, clientSecret: String?, name: String, type: String, callbacks: [String],
        allowedOrigins: [String], grantTypes: [String], iosBundleIDs: [String], androidPackages: [String],
        iosTeamID: String? = nil, androidFingerprints: [String] = [], isDefault: Bool, createdAt: String
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.name = name
        self.type = type
        self.callbacks = callbacks
        self.allowedOrigins = allowedOrigins
        self.grantTypes = grantTypes
        self.iosBundleIDs = iosBundleIDs
        self.androidPackages = androidPackages
        self.iosTeamID = iosTeamID
        self.androidFingerprints = androidFingerprints
        self.isDefault = isDefault
        self.createdAt = createdAt
    }
}

/// A console-outbox message as `sesame outbox --json` prints it.
public struct OutboxMessageBody: Codable, Sendable, Equatable {
    public var id: String
    public var channel: String
    public var recipient: String
    public var code: String?
    public var link: String?
    public var subject: String?
    public var body: String
    public var createdAt: String

    enum CodingKeys: String, CodingKey {
        case id, channel, recipient, code, link, subject, body
        case createdAt = "created_at"
    }

    /// Creates an outbox body.
    public init(
        id: String, channel: String, recipient: String, code: String?, link: String?, subject: String?, body: String,
        createdAt: String
    ) {
        self.id = id
        self.channel = channel
        self.recipient = recipient
        self.code = code
        self.link = link
        self.subject = subject
        self.body = body
        self.createdAt = createdAt
    }
}

/// A user in Auth0's profile shape.
public struct UserProfileBody: Codable, Sendable, Equatable {
    /// One linked identity.
    public struct Identity: Codable, Sendable, Equatable {
        public var userID: String
        public var provider: String
        public var connection: String
        public var isSocial: Bool

        enum CodingKeys: String, CodingKey {
            case userID = "user_id", provider, connection, isSocial
        }

        /// Creates an identity.
        public init(userID: String, provider: String, connection: String, isSocial: Bool) {
            self.userID = userID
            self.provider = provider
            self.connection = connection
            self.isSocial = isSocial
        }
    }

    public var userID: String
    public var email: String?
    public var emailVerified: Bool?
    public var phoneNumber: String?
    public var phoneVerified: Bool?
    public var name: String?
    public var nickname: String?
    public var picture: String?
    public var identities: [Identity]
    public var blocked: Bool
    public var createdAt: String
    public var updatedAt: String
    public var lastLogin: String?
    public var loginsCount: Int

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", email, emailVerified = "email_verified", phoneNumber = "phone_number"
        case phoneVerified = "phone_verified", name, nickname, picture, identities, blocked
        case createdAt = "created_at", updatedAt = "updated_at", lastLogin = "last_login", loginsCount = "logins_count"
    }

    /// Creates a profile body.
    public init(
        userID: String, email: String?, emailVerified: Bool?, phoneNumber: String?, phoneVerified: Bool?, name: String?,
        nickname: String?, picture: String?, identities: [Identity], blocked: Bool, createdAt: String, updatedAt: String,
        lastLogin: String?, loginsCount: Int
    ) {
        self.userID = userID
        self.email = email
        self.emailVerified = emailVerified
        self.phoneNumber = phoneNumber
        self.phoneVerified = phoneVerified
        self.name = name
        self.nickname = nickname
        self.picture = picture
        self.identities = identities
        self.blocked = blocked
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastLogin = lastLogin
        self.loginsCount = loginsCount
    }
}
