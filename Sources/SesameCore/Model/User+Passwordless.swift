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

extension User {
    /// The user once a code or link first proves the address on `connection`: verified, every
    /// token before `now` dead, and the profile as a code login would have made it. What anyone
    /// could write while the address was unproven (a passkey signup's name, nickname, picture
    /// and second address, self-service `user_metadata`) goes: it may be a stranger's.
    /// Operators' `app_metadata` stays.
    public mutating func proveAddress(on connection: Connection, at now: Date) {
        let fresh = User.newPasswordless(id: id, connection: connection, identifier: identifier, at: now)
        (name, nickname, picture) = (fresh.name, fresh.nickname, fresh.picture)
        (email, emailVerified, phoneNumber, phoneVerified) =
            (fresh.email, fresh.emailVerified, fresh.phoneNumber, fresh.phoneVerified)
        userMetadata = nil
        tokensValidAfter = now
        updatedAt = now
    }
}
