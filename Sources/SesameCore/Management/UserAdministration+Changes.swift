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
        blocked == nil && name == nil && picture == nil && appMetadata == nil
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
    /// audited with what changed.
    /// - Throws: 404 for an unknown user; 400 for a picture that is not an https URL or
    ///   metadata larger than 16 KB.
    @discardableResult
    public func update(_ userID: String, _ changes: UserChanges) async throws -> User {
        let user = try await user(userID)
        try Self.validate(changes)
        if let blocked = changes.blocked, blocked != user.blocked {
            _ = blocked ? try await block(userID) : try await unblock(userID)
        }
        let now = clock.now()
        let updated = try await storage.updateUser(id: user.id) { user in
            user.name = changes.name ?? user.name
            user.picture = changes.picture ?? user.picture
            if let patch = changes.userMetadata { user.userMetadata = Self.merge(user.userMetadata, patch) }
            if let patch = changes.appMetadata { user.appMetadata = Self.merge(user.appMetadata, patch) }
            user.updatedAt = now
            for metadata in [user.userMetadata, user.appMetadata] {
                let size = (try? JSONEncoder().encode(metadata ?? [:]).count) ?? 0
                guard size <= UserChanges.maximumMetadataBytes else {
                    throw SesameError.invalidRequest("Metadata is limited to 16 KB of JSON.")
                }
            }
        }
        let fields = [
            changes.name.map { _ in "name" }, changes.picture.map { _ in "picture" },
            changes.userMetadata.map { _ in "user_metadata" }, changes.appMetadata.map { _ in "app_metadata" },
        ].compactMap { $0 }
        if !fields.isEmpty { await audit.record(.userUpdated, user: user.userID, detail: fields.joined(separator: ", ")) }
        return updated
    }

    /// Auth0's merge: top-level properties replace, null removes.
    static func merge(_ stored: [String: JSONValue]?, _ patch: [String: JSONValue]) -> [String: JSONValue]? {
        var merged = stored ?? [:]
        for (key, value) in patch {
            if value == .null { merged[key] = nil } else { merged[key] = value }
        }
        return merged.isEmpty ? nil : merged
    }

    private static func validate(_ changes: UserChanges) throws {
        if let picture = changes.picture,
            URLComponents(string: picture).map({ $0.scheme == "https" && $0.host?.isEmpty == false }) != true
        {
            throw SesameError.invalidRequest("picture must be an https URL.")
        }
        if let name = changes.name, name.isEmpty || name.count > 300 {
            throw SesameError.invalidRequest("name must be 1 to 300 characters.")
        }
    }
}
