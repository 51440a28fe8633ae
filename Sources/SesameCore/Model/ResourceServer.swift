public import Foundation

/// An API that access tokens can be issued for (Auth0's resource server): an `audience` naming
/// its `identifier` gets an RFC 9068 JWT access token shaped by these settings.
public struct ResourceServer: Sendable, Codable, Equatable {
    /// 24 hexadecimal digits, as Auth0's.
    public var id: String
    /// The `audience` clients ask for and the token's `aud`; never changes.
    public var identifier: String
    public var name: String
    /// The permissions the API defines, in the order given.
    public var scopes: [ResourceServerScope]
    /// Seconds an access token lives (Auth0: 86400).
    public var tokenLifetime: Int
    /// Seconds an access token issued to a browser (a single-page application) lives.
    public var tokenLifetimeForWeb: Int
    /// Only `RS256`: the one algorithm Sesame signs with.
    public var signingAlg: String
    /// Role-based access control: a token carries only the scopes the user's roles and direct
    /// permissions grant.
    public var enforcePolicies: Bool
    public var tokenDialect: TokenDialect
    /// Whether a login for the API may get a refresh token (`offline_access`).
    public var allowOfflineAccess: Bool
    public var createdAt: Date

    /// Creates an API with Auth0's defaults.
    public init(
        id: String, identifier: String, name: String, scopes: [ResourceServerScope] = [], tokenLifetime: Int = 86400,
        tokenLifetimeForWeb: Int = 7200, signingAlg: String = "RS256", enforcePolicies: Bool = false,
        tokenDialect: TokenDialect = .accessToken, allowOfflineAccess: Bool = false, createdAt: Date
    ) {
        self.id = id
        self.identifier = identifier
        self.name = name
        self.scopes = scopes
        self.tokenLifetime = tokenLifetime
        self.tokenLifetimeForWeb = tokenLifetimeForWeb
        self.signingAlg = signingAlg
        self.enforcePolicies = enforcePolicies
        self.tokenDialect = tokenDialect
        self.allowOfflineAccess = allowOfflineAccess
        self.createdAt = createdAt
    }

    /// Whether the API defines the permission `name`.
    public func defines(_ name: String) -> Bool { scopes.contains { $0.value == name } }
}

/// One permission an API defines.
public struct ResourceServerScope: Sendable, Codable, Equatable {
    public var value: String
    public var description: String?

    /// Creates a scope.
    public init(value: String, description: String? = nil) {
        self.value = value
        self.description = description
    }
}

/// What an API's access tokens say about permissions (Auth0's `token_dialect`).
public enum TokenDialect: String, Sendable, Codable, CaseIterable {
    /// The granted permissions in `scope` only.
    case accessToken = "access_token"
    /// Also a `permissions` array (with `enforce_policies`).
    case accessTokenAuthz = "access_token_authz"
}

/// A named set of permissions given to users (Auth0's role).
public struct Role: Sendable, Codable, Equatable {
    /// `rol_` and 16 letters or digits.
    public var id: String
    /// Unique.
    public var name: String
    public var description: String?
    public var createdAt: Date

    /// Creates a role.
    public init(id: String, name: String, description: String? = nil, createdAt: Date) {
        self.id = id
        self.name = name
        self.description = description
        self.createdAt = createdAt
    }
}

/// A permission of an API: what a role or a user is given.
public struct Permission: Sendable, Codable, Equatable, Hashable {
    public var resourceServerIdentifier: String
    public var permissionName: String

    /// Creates a permission.
    public init(resourceServerIdentifier: String, permissionName: String) {
        self.resourceServerIdentifier = resourceServerIdentifier
        self.permissionName = permissionName
    }
}

/// A permission a user holds and where from: directly (nil role) or through a role.
public struct UserPermission: Sendable, Equatable {
    public var permission: Permission
    /// The roles that give it; empty when it is given directly only.
    public var roleIDs: [String]
    /// Whether it is also given directly.
    public var direct: Bool

    /// Creates a held permission.
    public init(permission: Permission, roleIDs: [String], direct: Bool) {
        self.permission = permission
        self.roleIDs = roleIDs
        self.direct = direct
    }
}
