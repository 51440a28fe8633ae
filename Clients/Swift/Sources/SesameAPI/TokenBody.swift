/// A token endpoint success body (RFC 6749 §5.1, Auth0's fields).
public struct TokenBody: Codable, Sendable, Equatable {
    public var accessToken: String
    public var tokenType: String
    public var expiresIn: Int
    public var idToken: String?
    public var refreshToken: String?
    public var scope: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in"
        case idToken = "id_token", refreshToken = "refresh_token", scope
    }

    /// Creates a token body.
    public init(
        accessToken: String, tokenType: String, expiresIn: Int, idToken: String?, refreshToken: String?, scope: String?
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.scope = scope
    }
}

extension TokenBody: DirectJSONEncodable {
    /// The body as the server's encoder writes it (sorted keys), without `JSONEncoder`: every
    /// login and refresh answers with one.
    public func directJSON() -> [UInt8]? {
        var json = JSONObjectWriter()
        json.add("access_token", accessToken)
        json.add("expires_in", Int64(expiresIn))
        json.add("id_token", idToken)
        json.add("refresh_token", refreshToken)
        json.add("scope", scope)
        json.add("token_type", tokenType)
        return json.finish()
    }
}

/// The `/passwordless/start` answer, identical for known and unknown users.
public struct PasswordlessStartBody: Codable, Sendable, Equatable {
    public var id: String
    public var email: String?
    public var emailVerified: Bool?
    public var phoneNumber: String?
    public var phoneVerified: Bool?
    public var requestLanguage: String?

    enum CodingKeys: String, CodingKey {
        case id = "_id", email, emailVerified = "email_verified", phoneNumber = "phone_number"
        case phoneVerified = "phone_verified", requestLanguage = "request_language"
    }

    /// The answer for an email start.
    public static func email(id: String, email: String) -> PasswordlessStartBody {
        PasswordlessStartBody(id: id, email: email, emailVerified: false)
    }

    /// The answer for an SMS start.
    public static func sms(id: String, phoneNumber: String, language: String?) -> PasswordlessStartBody {
        PasswordlessStartBody(id: id, phoneNumber: phoneNumber, phoneVerified: false, requestLanguage: language)
    }

    /// Creates a start body.
    public init(
        id: String, email: String? = nil, emailVerified: Bool? = nil, phoneNumber: String? = nil,
        phoneVerified: Bool? = nil, requestLanguage: String? = nil
    ) {
        self.id = id
        self.email = email
        self.emailVerified = emailVerified
        self.phoneNumber = phoneNumber
        self.phoneVerified = phoneVerified
        self.requestLanguage = requestLanguage
    }
}
