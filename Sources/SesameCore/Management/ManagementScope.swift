/// What a management token may do on `/api/v2` (Auth0's Management API scopes).
public enum ManagementScope: String, Sendable, CaseIterable {
    case readUsers = "read:users"
    case updateUsers = "update:users"
    case deleteUsers = "delete:users"
    case readClients = "read:clients"
    case createClients = "create:clients"
    case updateClients = "update:clients"
    case deleteClients = "delete:clients"
    case readLogs = "read:logs"
    case readDeviceCredentials = "read:device_credentials"
    case createDeviceCredentials = "create:device_credentials"
    case deleteDeviceCredentials = "delete:device_credentials"
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
        guard let token, let admin = try await authenticate(token) else {
            throw SesameError(.unauthorized, .invalidToken, "A management token (Authorization: Bearer sadm_…) is required.")
        }
        guard admin.allows(scope) else {
            throw SesameError(.forbidden, .insufficientScope, "The management token lacks the scope \(scope.rawValue).")
        }
        return admin
    }

    /// Refuses scopes that do not exist, so a typo cannot make a token that silently lacks one.
    public static func validate(scopes: [String]) throws {
        let known = ManagementScope.allCases.map(\.rawValue)
        if let unknown = scopes.first(where: { !known.contains($0) }) {
            throw SesameError.invalidRequest("Unknown scope \(unknown); known scopes: \(known.joined(separator: ", ")).")
        }
    }
}
