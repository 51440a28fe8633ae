public import Foundation
public import SesameAPI

/// A person who has signed in at least once. Created by the first successful login on a
/// connection; identified on the wire by ``userID`` (`email|<id>` / `sms|<id>`, as Auth0).
public struct User: Sendable, Codable, Equatable {
    /// 24 lowercase hex digits, unique across connections.
    public var id: String
    /// The connection the user signed up with (`email` or `sms`).
    public var connection: String
    /// The normalised address or phone number the user signs in with.
    public var identifier: String
    public var email: String?
    public var emailVerified: Bool
    public var phoneNumber: String?
    public var phoneVerified: Bool
    public var name: String?
    /// Auth0's `given_name` and `family_name`: kept for the management API when an operator
    /// sets them (users brought from Auth0 keep theirs).
    public var givenName: String?
    public var familyName: String?
    public var nickname: String?
    public var picture: String?
    /// A blocked user gets no codes and no tokens; answers stay identical to unknown users.
    public var blocked: Bool
    public var createdAt: Date
    public var updatedAt: Date
    public var lastLogin: Date?
    public var loginsCount: Int
    /// Tokens issued before this instant no longer work: set when the address is first
    /// verified, so whatever was minted while it was unproven dies (account pre-hijacking).
    public var tokensValidAfter: Date?
    /// What the user may change about themselves (Auth0's `user_metadata`); nil is empty.
    public var userMetadata: [String: JSONValue]?
    /// What operators keep about the user (Auth0's `app_metadata`); nil is empty. It can be
    /// put in id_tokens (`tokens.app_metadata_claim`).
    public var appMetadata: [String: JSONValue]?

    /// The provider of an Auth0 `user_id` kept from another connection (`auth0`,
    /// `google-oauth2`): a user brought from there signs in by code here and keeps the `sub`
    /// they had. Nil: the connection.
    public var provider: String?

    /// Auth0's `user_id`: the provider (the connection unless kept from elsewhere), a pipe,
    /// and the id.
    public var userID: String { "\(provider ?? connection)|\(id)" }

    /// Creates a user record.
    public init(
        id: String, connection: String, identifier: String, email: String? = nil, emailVerified: Bool = false,
        phoneNumber: String? = nil, phoneVerified: Bool = false, name: String? = nil, nickname: String? = nil,
        picture: String? = nil, blocked: Bool = false, createdAt: Date, updatedAt: Date, lastLogin: Date? = nil,
        loginsCount: Int = 0, tokensValidAfter: Date? = nil
    ) {
        self.id = id
        self.connection = connection
        self.identifier = identifier
        self.email = email
        self.emailVerified = emailVerified
        self.phoneNumber = phoneNumber
        self.phoneVerified = phoneVerified
        self.name = name
        self.nickname = nickname
        self.picture = picture
        self.blocked = blocked
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastLogin = lastLogin
        self.loginsCount = loginsCount
        self.tokensValidAfter = tokensValidAfter
    }

    /// Whether the address the user signs in with has been proven by a code or link (a
    /// passkey signup leaves it unproven).
    public var identifierVerified: Bool {
        phoneNumber == identifier ? phoneVerified : emailVerified
    }

    /// Splits an Auth0 `user_id` (`email|abc…`) into connection and id.
    public static func parse(userID: String) -> (connection: String, id: String)? {
        let parts = userID.split(separator: "|", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return (parts[0], parts[1])
    }
}
