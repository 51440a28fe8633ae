import Foundation
public import SesameAPI

/// A user an operator creates (`POST /api/v2/users`), in Auth0's terms: the connection, the
/// address the user signs in with, and optionally the `user_id` they had before, so an Auth0
/// user `email|5f7c…` keeps exactly that `sub`.
public struct NewUser: Sendable, Equatable {
    /// `email` or `sms`.
    public var connection: String
    public var email: String?
    public var phoneNumber: String?
    /// Whether the address is proven; Auth0's default is false.
    public var emailVerified: Bool?
    public var phoneVerified: Bool?
    /// `email|5f7c…`, the part after the pipe, or the id of another Auth0 connection kept
    /// whole (`auth0|5f7c…`, `google-oauth2|1041…`); nil: a new id.
    public var userID: String?
    public var blocked: Bool?
    /// The profile fields; those not given get the profile a first login would make.
    public var profile = ProfileChanges()
    public var userMetadata: [String: JSONValue]?
    public var appMetadata: [String: JSONValue]?

    /// Creates a new user's description.
    public init(connection: String, email: String? = nil, phoneNumber: String? = nil) {
        self.connection = connection
        self.email = email
        self.phoneNumber = phoneNumber
    }
}

/// The names and picture Auth0 lets operators set on a user; nil leaves one as it is.
public struct ProfileChanges: Sendable, Equatable {
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    public var nickname: String?
    public var picture: String?

    /// Creates profile changes.
    public init(
        name: String? = nil, givenName: String? = nil, familyName: String? = nil, nickname: String? = nil,
        picture: String? = nil
    ) {
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.nickname = nickname
        self.picture = picture
    }

    /// Whether nothing changes.
    var isEmpty: Bool { self == ProfileChanges() }

    /// The fields that change, by their wire names, for the audit.
    var fieldNames: [String] {
        [
            name.map { _ in "name" }, givenName.map { _ in "given_name" }, familyName.map { _ in "family_name" },
            nickname.map { _ in "nickname" }, picture.map { _ in "picture" },
        ].compactMap { $0 }
    }

    /// Refuses a picture that is not https and names that are empty or too long.
    func validate() throws {
        if let picture, URLComponents(string: picture).map({ $0.scheme == "https" && $0.host?.isEmpty == false }) != true {
            throw SesameError.invalidRequest("picture must be an https URL.")
        }
        for (field, value) in [("name", name), ("given_name", givenName), ("family_name", familyName), ("nickname", nickname)] {
            if let value, value.isEmpty || value.count > 300 {
                throw SesameError.invalidRequest("\(field) must be 1 to 300 characters.")
            }
        }
    }

    /// Writes the fields that are set onto `user`.
    func apply(to user: inout User) {
        user.name = name ?? user.name
        user.givenName = givenName ?? user.givenName
        user.familyName = familyName ?? user.familyName
        user.nickname = nickname ?? user.nickname
        user.picture = picture ?? user.picture
    }
}

extension UserAdministration {
    /// Creates a user who has not signed in yet; their first code or link on the connection
    /// signs them in as this user, with this `user_id` as the `sub` of their tokens. Audited as
    /// `user_created` (the `user.created` webhook event).
    /// - Throws: 400 for an unknown connection, a missing or malformed address, a malformed
    ///   `user_id` or one of the other passwordless connection, or a bad profile field; 409 `user_exists` when
    ///   the address or the id is taken (on any connection).
    public func create(_ new: NewUser) async throws -> User {
        guard let connection = try await storage.connection(name: new.connection) else {
            throw SesameError.invalidRequest("connection must be email or sms.")
        }
        let user = try record(new, on: connection)
        if try await storage.user(id: user.id) != nil { throw Self.userExists }
        do {
            try await storage.createUser(user)
        } catch let error as StorageError where error.isAlreadyExists {
            throw Self.userExists
        }
        await audit.record(.userCreated, user: user.userID, detail: "by an operator")
        return user
    }

    /// 409: the address or the id belongs to a user already.
    static let userExists = SesameError(.conflict, "user_exists", "The user already exists.")

    /// The record `new` describes on `connection`, checked, not yet stored.
    func record(_ new: NewUser, on connection: Connection) throws -> User {
        var user = try newUser(new, on: connection)
        user.blocked = new.blocked ?? false
        if let patch = new.userMetadata { user.userMetadata = Self.merge(nil, patch) }
        if let patch = new.appMetadata { user.appMetadata = Self.merge(nil, patch) }
        try Self.checkMetadataSize(user)
        return user
    }

    /// The record `new` describes on `connection`, before its metadata.
    private func newUser(_ new: NewUser, on connection: Connection) throws -> User {
        let email = try new.email.map(Self.email)
        let phone = try new.phoneNumber.map(Self.phone)
        guard let identifier = connection.strategy == .email ? email : phone else {
            throw SesameError.invalidRequest(
                connection.strategy == .email
                    ? "email is required for the email connection."
                    : "phone_number is required for the sms connection.")
        }
        let now = clock.now()
        let kept = try Self.id(from: new.userID, connection: connection.name)
        var user = User.newPasswordless(
            id: kept?.id ?? random.orderedHex(at: now), connection: connection, identifier: identifier, at: now)
        user.provider = kept?.provider
        (user.email, user.phoneNumber) = (email, phone)
        (user.emailVerified, user.phoneVerified) = (new.emailVerified ?? false, new.phoneVerified ?? false)
        try new.profile.validate()
        new.profile.apply(to: &user)
        return user
    }

    /// The provider and stored id of a given `user_id`: what follows `connection|` (no
    /// provider), or `provider|` of another Auth0 connection (`auth0|…`, `google-oauth2|…`,
    /// kept so the user's `sub` stays), or the whole of it without a pipe. The other
    /// passwordless connection's prefix is refused: `sms|…` names an sms user. Letters,
    /// digits, `-`, `_` and `.` (a provider up to 64, an id up to 128): the id is the path of
    /// `/api/v2/users/{id}` and part of every token's `sub`.
    static func id(from userID: String?, connection: String) throws -> (provider: String?, id: String)? {
        guard let userID else { return nil }
        var (provider, id): (String?, String) = (nil, userID)
        if let (prefix, rest) = User.parse(userID: userID) {
            guard prefix == connection || (!["email", "sms"].contains(prefix) && isSafe(prefix, upTo: 64)) else {
                throw SesameError.invalidRequest(
                    "user_id must start with \(connection)| or another provider's prefix (auth0|) for the \(connection) connection."
                )
            }
            (provider, id) = (prefix == connection ? nil : prefix, rest)
        }
        guard isSafe(id, upTo: 128) else {
            throw SesameError.invalidRequest("user_id may hold only letters, digits, '-', '_' and '.', up to 128.")
        }
        return (provider, id)
    }

    /// Whether `text` is 1 to `limit` ASCII letters, digits, `-`, `_` and `.`.
    private static func isSafe(_ text: String, upTo limit: Int) -> Bool {
        (1...limit).contains(text.count)
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0))
            }
    }

    static func email(_ raw: String) throws -> String {
        guard let email = Identifier.normalizedEmail(raw) else { throw SesameError.invalidRequest("email is not valid.") }
        return email
    }

    static func phone(_ raw: String) throws -> String {
        guard let phone = Identifier.normalizedPhone(raw) else {
            throw SesameError.invalidRequest("phone_number must be in E.164 format (+ and up to 15 digits).")
        }
        return phone
    }
}
