import Foundation

/// The profile claims a scope releases (OIDC Core §5.4), shared by id_tokens and `/userinfo`.
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

    /// The claims of `user` that `scope` releases.
    public init(user: User, scope: Scope) {
        sub = user.userID
        if scope.contains("profile") {
            name = user.name
            nickname = user.nickname
            picture = user.picture
            updatedAt = ISO8601.string(user.updatedAt)
        }
        if scope.contains("email"), let email = user.email {
            self.email = email
            emailVerified = user.emailVerified
        }
        if scope.contains("phone"), let phone = user.phoneNumber {
            phoneNumber = phone
            phoneNumberVerified = user.phoneVerified
        }
    }
}
