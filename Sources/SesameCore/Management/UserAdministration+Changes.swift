import Foundation
public import SesameAPI

/// What an operator (or, for `user_metadata` only, the user) changes about a user through
/// `PATCH /api/v2/users/{id}`. Absent fields stay as they are.
public struct UserChanges: Sendable, Equatable {
    public var blocked: Bool?
    public var name: String?
    public var picture: String?
    /// Merged into the stored object at the top level; a property set to null is removed.
    public var userMetadata: [String: JSONValue]?
    public var appMetadata: [String: JSONValue]?
    public var givenName: String?
    public var familyName: String?
    public var nickname: String?
    /// A new address; for the user's own kind of address (email on the email connection) it is
    /// the one they sign in with from now on. Unproven unless the verified flag says otherwise.
    public var email: String?
    public var phoneNumber: String?
    public var emailVerified: Bool?
    public var phoneVerified: Bool?

    /// Creates changes.
    public init(
        blocked: Bool? = nil, name: String? = nil, picture: String? = nil, userMetadata: [String: JSONValue]? = nil,
        appMetadata: [String: JSONValue]? = nil
    ) {
        self.blocked = blocked
        self.name = name
        self.picture = picture
        self.userMetadata = userMetadata
        self.appMetadata = appMetadata
    }

    /// Whether only `user_metadata` changes: what a user may do with their own token.
    public var isUserMetadataOnly: Bool {
        var others = self
        others.userMetadata = nil
        return others == UserChanges()
    }

    /// The names and picture among the changes.
    var profile: ProfileChanges {
        ProfileChanges(name: name, givenName: givenName, familyName: familyName, nickname: nickname, picture: picture)
    }

    /// The fields that change, by their wire names, for the audit.
    var fieldNames: [String] {
        profile.fieldNames
            + [
                email.map { _ in "email" }, phoneNumber.map { _ in "phone_number" },
                emailVerified.map { _ in "email_verified" }, phoneVerified.map { _ in "phone_verified" },
                userMetadata.map { _ in "user_metadata" }, appMetadata.map { _ in "app_metadata" },
            ].compactMap { $0 }
    }

    /// The largest metadata object stored, as JSON: metadata is for a few settings, not files.
    static let maximumMetadataBytes = 16 * 1024
}

extension UserAdministration {
    /// Users matching `search`, and how many match in all.
    public func search(_ search: UserSearch) async throws -> (users: [User], total: Int) {
        (try await storage.searchUsers(search), try await storage.countUsers(search))
    }

    /// Applies `changes` in one transaction (blocking also revokes tokens and sessions),
    /// audited with what changed (the `user.updated` webhook event).
    /// - Throws: 404 for an unknown user; 400 for a picture that is not an https URL, a
    ///   malformed address or metadata larger than 16 KB; 409 `user_exists` for an address
    ///   another user signs in with.
    @discardableResult
    public func update(_ userID: String, _ changes: UserChanges) async throws -> User {
        let user = try await user(userID)
        try changes.profile.validate()
        var addresses = changes
        addresses.email = try changes.email.map(Self.email)
        addresses.phoneNumber = try changes.phoneNumber.map(Self.phone)
        if let blocked = changes.blocked, blocked != user.blocked {
            _ = blocked ? try await block(userID) : try await unblock(userID)
        }
        let now = clock.now()
        let updated: User
        do {
            updated = try await storage.updateUser(id: user.id) { [addresses] user in
                changes.profile.apply(to: &user)
                Self.apply(addresses: addresses, to: &user)
                if let patch = changes.userMetadata { user.userMetadata = Self.merge(user.userMetadata, patch) }
                if let patch = changes.appMetadata { user.appMetadata = Self.merge(user.appMetadata, patch) }
                user.updatedAt = now
                try Self.checkMetadataSize(user)
            }
        } catch let error as StorageError where error.isAlreadyExists {
            throw Self.userExists
        }
        let fields = changes.fieldNames
        if !fields.isEmpty { await audit.record(.userUpdated, user: user.userID, detail: fields.joined(separator: ", ")) }
        return updated
    }

    /// Auth0's rule for a changed address: unproven unless the change says it is verified. The
    /// address the user signs in with follows its field, so they sign in with the new one.
    static func apply(addresses changes: UserChanges, to user: inout User) {
        let signsInByPhone = user.identifier == user.phoneNumber
        if let email = changes.email, email != user.email { (user.email, user.emailVerified) = (email, false) }
        if let phone = changes.phoneNumber, phone != user.phoneNumber {
            (user.phoneNumber, user.phoneVerified) = (phone, false)
        }
        user.emailVerified = changes.emailVerified ?? user.emailVerified
        user.phoneVerified = changes.phoneVerified ?? user.phoneVerified
        user.identifier = (signsInByPhone ? user.phoneNumber : user.email) ?? user.identifier
    }

    /// Refuses metadata larger than 16 KB of JSON.
    static func checkMetadataSize(_ user: User) throws {
        for metadata in [user.userMetadata, user.appMetadata] {
            let size = (try? JSONEncoder().encode(metadata ?? [:]).count) ?? 0
            guard size <= UserChanges.maximumMetadataBytes else {
                throw SesameError.invalidRequest("Metadata is limited to 16 KB of JSON.")
            }
        }
    }

    /// Auth0's merge: top-level properties replace, null removes.
    static func merge(_ stored: [String: JSONValue]?, _ patch: [String: JSONValue]) -> [String: JSONValue]? {
        var merged = stored ?? [:]
        for (key, value) in patch {
            if value == .null { merged[key] = nil } else { merged[key] = value }
        }
        return merged.isEmpty ? nil : merged
    }
}
