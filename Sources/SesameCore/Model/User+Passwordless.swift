import Crypto
public import Foundation

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
