import Crypto
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

extension User {
    /// A new user of a passwordless connection with Auth0's default profile: the address as
    /// name, its local part as nickname, and a Gravatar picture for email users.
    public static func newPasswordless(
        id: String, connection: Connection, identifier: String, at now: Date
    ) -> User {
        let isEmail = connection.strategy == .email
        let nickname = isEmail ? String(identifier.prefix(while: { $0 != "@" })) : identifier
        return User(
            id: id, connection: connection.name, identifier: identifier,
            email: isEmail ? identifier : nil, emailVerified: isEmail,
            phoneNumber: isEmail ? nil : identifier, phoneVerified: !isEmail,
            name: identifier, nickname: nickname, picture: isEmail ? gravatar(identifier) : nil,
            createdAt: now, updatedAt: now)
    }

    private static func gravatar(_ email: String) -> String {
        let digest = Hex.encode(Insecure.MD5.hash(data: Data(email.utf8)))
        return "https://secure.gravatar.com/avatar/\(digest)?s=480&r=pg&d=identicon"
    }
}

/// ISO 8601 with milliseconds, the timestamp format of Auth0 profiles.
public enum ISO8601 {
    /// Formats `date` as `2016-12-05T15:15:40.545Z`.
    public static func string(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true)
                .timeSeparator(.colon).timeZone(separator: .omitted))
    }
}
