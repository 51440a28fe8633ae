/// The profile claims a scope releases (OIDC Core §5.4): the `/userinfo` body, and the
/// profile part of an id_token. Apps read it through `SesameClient`.
public struct UserInfo: Sendable, Codable, Equatable {
    public var sub: String
    public var name: String?
    public var nickname: String?
    public var picture: String?
    public var updatedAt: String?
    public var email: String?
    public var emailVerified: Bool?
    public var phoneNumber: String?
    public var phoneNumberVerified: Bool?

    enum CodingKeys: String, CodingKey {
        case sub, name, nickname, picture, email
        case updatedAt = "updated_at", emailVerified = "email_verified"
        case phoneNumber = "phone_number", phoneNumberVerified = "phone_number_verified"
    }

    /// Creates a profile.
    public init(
        sub: String, name: String? = nil, nickname: String? = nil, picture: String? = nil, updatedAt: String? = nil,
        email: String? = nil, emailVerified: Bool? = nil, phoneNumber: String? = nil, phoneNumberVerified: Bool? = nil
    ) {
        self.sub = sub
        self.name = name
        self.nickname = nickname
        self.picture = picture
        self.updatedAt = updatedAt
        self.email = email
        self.emailVerified = emailVerified
        self.phoneNumber = phoneNumber
        self.phoneNumberVerified = phoneNumberVerified
    }
}

extension UserInfo: DirectJSONEncodable {
    /// Adds the profile's claims, in sorted order, to `json`: the id_token's claims hold them.
    public func write(to json: inout JSONObjectWriter) {
        json.add("email", email)
        json.add("email_verified", emailVerified)
        json.add("name", name)
        json.add("nickname", nickname)
        json.add("phone_number", phoneNumber)
        json.add("phone_number_verified", phoneNumberVerified)
        json.add("picture", picture)
        json.add("sub", sub)
        json.add("updated_at", updatedAt)
    }

    /// The `/userinfo` body as the server's encoder writes it (sorted keys).
    public func directJSON() -> [UInt8]? {
        var json = JSONObjectWriter()
        write(to: &json)
        return json.finish()
    }
}
