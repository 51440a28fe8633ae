/// What a management token may do on `/api/v2` (Auth0's Management API scopes).
public enum ManagementScope: String, Sendable, CaseIterable {
    case readUsers = "read:users"
    case createUsers = "create:users"
    case updateUsers = "update:users"
    case deleteUsers = "delete:users"
    case readClients = "read:clients"
    case createClients = "create:clients"
    case updateClients = "update:clients"
    case deleteClients = "delete:clients"
    case readLogs = "read:logs"
    case readClientKeys = "read:client_keys"
    case updateClientKeys = "update:client_keys"
    case readClientGrants = "read:client_grants"
    case createClientGrants = "create:client_grants"
    case updateClientGrants = "update:client_grants"
    case deleteClientGrants = "delete:client_grants"
    case readConnections = "read:connections"
    case readSessions = "read:sessions"
    case deleteSessions = "delete:sessions"
    case readRefreshTokens = "read:refresh_tokens"
    case deleteRefreshTokens = "delete:refresh_tokens"
    case readDeviceCredentials = "read:device_credentials"
    case createDeviceCredentials = "create:device_credentials"
    case deleteDeviceCredentials = "delete:device_credentials"
    case readResourceServers = "read:resource_servers"
    case createResourceServers = "create:resource_servers"
    case updateResourceServers = "update:resource_servers"
    case deleteResourceServers = "delete:resource_servers"
    case readRoles = "read:roles"
    case createRoles = "create:roles"
    case updateRoles = "update:roles"
    case deleteRoles = "delete:roles"
    case readRoleMembers = "read:role_members"
    case createRoleMembers = "create:role_members"
    case deleteRoleMembers = "delete:role_members"
}

extension AdminToken {
    /// Whether the token carries `scope` (a token without scopes carries every one).
    public func allows(_ scope: ManagementScope) -> Bool {
        scopes.isEmpty || scopes.contains(scope.rawValue)
    }
}

extension AdminTokens {
    /// The management token of an `Authorization: Bearer` header, if it carries `scope`.
    /// - Throws: 401 `invalid_token` for a missing, unknown or revoked token; 403
    ///   `insufficient_scope` for one without `scope`.
    @discardableResult
    public func authorize(bearerToken token: String?, for scope: ManagementScope) async throws -> AdminToken {
        guard let token, let admin = try await management(token) else {
            throw SesameError(.unauthorized, .invalidToken, "A management token (Authorization: Bearer sadm_…) is required.")
        }
        guard admin.allows(scope) else {
            throw SesameError(.forbidden, .insufficientScope, "The management token lacks the scope \(scope.rawValue).")
        }
        return admin
    }

    /// Whether `token` is a live management token (a `sadm_…` token or a machine token), so
    /// routes that also take users' own tokens know which rules apply.
    public func isManagementToken(_ token: String) async throws -> Bool {
        try await management(token) != nil
    }

    /// The management token `token` stands for: a stored `sadm_…` token, or a machine token
    /// seen as one whose scopes are those its client grant still allows. A machine token
    /// with no scope left gets a scope no route asks for, never the empty list that means
    /// every scope.
    private func management(_ token: String) async throws -> AdminToken? {
        if token.hasPrefix(Self.prefix) { return try await authenticate(token) }
        guard let machine, let grant = try await machine.verify(token) else { return nil }
        return AdminToken(
            id: grant.clientID + "@clients", name: grant.clientID, tokenHash: [], createdAt: grant.issuedAt,
            scopes: grant.scopes.isEmpty ? ["none"] : grant.scopes)
    }

    /// Refuses scopes that do not exist, so a typo cannot make a token that silently lacks one.
    public static func validate(scopes: [String]) throws {
        let known = ManagementScope.allCases.map(\.rawValue)
        if let unknown = scopes.first(where: { !known.contains($0) }) {
            throw SesameError.invalidRequest("Unknown scope \(unknown); known scopes: \(known.joined(separator: ", ")).")
        }
    }
}
