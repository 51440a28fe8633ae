extension UserAdministration {
    /// The scope a user's own access token needs to change their own `user_metadata`.
    public static let selfServiceScope = "update:current_user_metadata"

    /// Whether a user's own access token may change anything about them at all: the scope,
    /// and a proven address. The HTTP edge asks before reading the body; ``updateOwn(_:_:by:)``
    /// asks again, so no caller can skip it.
    /// - Throws: 403 `insufficient_scope` without the scope; 403 `access_denied` while the
    ///   address is unproven.
    public func authorizeSelfService(_ grant: AccessGrant) throws {
        try grant.require(scope: Self.selfServiceScope)
        // Whatever an unproven account writes about itself may be a stranger's, planted
        // before the address's owner arrives (account pre-hijacking).
        try grant.requireVerifiedAddress()
    }

    /// A user's change to their own record with their own access token: only their own
    /// `user_metadata`, and only once their address is proven.
    /// - Throws: as ``authorizeSelfService(_:)``; 403 `insufficient_scope` for another user or
    ///   any field but `user_metadata`; then as ``update(_:_:)``.
    @discardableResult
    public func updateOwn(_ userID: String, _ changes: UserChanges, by grant: AccessGrant) async throws -> User {
        try authorizeSelfService(grant)
        guard grant.user.userID == userID, changes.isUserMetadataOnly else {
            throw SesameError(.forbidden, .insufficientScope, "A user's own token may change only their own user_metadata.")
        }
        return try await update(userID, changes)
    }
}
