import Foundation

/// What a login for an API (``ResourceServer``) may carry: the scopes granted and the
/// permissions of an `access_token_authz` token, decided on each issue (logins and refreshes
/// alike), so a role taken away narrows the next token.
struct APIAccess: Sendable {
    /// The granted scope: the request's, less the API's permissions the user may not use
    /// (with `enforce_policies`) and `offline_access` when the API allows none.
    let scope: Scope
    /// The `permissions` claim; nil unless the API's dialect is `access_token_authz`.
    let permissions: [String]?

    /// The access `user` gets to `api` for `requested`.
    /// - Parameter held: the user's permissions on the API (from roles and directly); read
    ///   only when the API enforces policies or names permissions in its tokens.
    static func decide(
        for api: ResourceServer, requested: Scope, held: @Sendable () async throws -> [String]
    ) async throws -> APIAccess {
        let needsHeld = api.enforcePolicies || api.tokenDialect == .accessTokenAuthz
        // Only permissions the API still defines count: one removed from the API stops
        // reaching tokens at once, whoever still holds it.
        var granted: [String] = []
        if needsHeld { granted = try await held().filter(api.defines) }
        var scope = requested
        scope.remove { name in
            if name == "offline_access" { return !api.allowOfflineAccess }
            return api.enforcePolicies && api.defines(name) && !granted.contains(name)
        }
        return APIAccess(scope: scope, permissions: api.tokenDialect == .accessTokenAuthz ? granted : nil)
    }
}

extension AccessControlRepository {
    /// The API an `audience` names: the built-in My Account API, a stored one, or one the
    /// `audiences` setting lists.
    /// - Throws: 403 `access_denied` for any other audience, as Auth0 answers.
    func api(named audience: String, settings: LoginSettings) async throws -> ResourceServer {
        if settings.isMyAccountAudience(audience) { return .myAccount(settings: settings) }
        if let stored = try await resourceServer(identifier: audience) { return stored }
        guard settings.audiences.contains(audience) else { throw SesameError.accessDenied("Service not found: \(audience)") }
        return .configured(audience, settings: settings)
    }
}

extension ResourceServer {
    /// An API named in the `audiences` setting that is not stored (yet): the tokens it always
    /// had (every scope asked for, refresh tokens, the configured JWT lifetime).
    static func configured(_ identifier: String, settings: LoginSettings) -> ResourceServer {
        let lifetime = min(settings.jwtAccessTokenLifetime, settings.accessTokenLifetime)
        return ResourceServer(
            id: "", identifier: identifier, name: identifier, tokenLifetime: lifetime, tokenLifetimeForWeb: lifetime,
            allowOfflineAccess: true, createdAt: .distantPast)
    }

    /// Seconds a token for `application` lives: browser applications get the web lifetime.
    func lifetime(for application: Application) -> Int {
        application.type == .spa ? tokenLifetimeForWeb : tokenLifetime
    }
}
