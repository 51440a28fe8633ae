public import Foundation
public import JWTKit

/// Machine-to-machine tokens: `client_credentials` for the Management API, as Auth0 issues
/// them (an RS256 JWT with `sub` `<client_id>@clients`, `gty` `client-credentials` and the
/// scopes the application's client grant allows), and their check on `/api/v2`.
public struct MachineTokens: Sendable {
    let storage: any ClientGrantRepository & AccessControlRepository
    let keys: KeyRing
    let settings: LoginSettings
    let clock: any SesameClock
    let random: any RandomSource
    let audit: AuditLog

    /// Creates the service.
    init(
        storage: any SesameStorage, keys: KeyRing, settings: LoginSettings, clock: any SesameClock,
        random: any RandomSource, audit: AuditLog
    ) {
        self.storage = storage
        self.keys = keys
        self.settings = settings
        self.clock = clock
        self.random = random
        self.audit = audit
    }

    /// The Management API's identifier: `<issuer>api/v2/` (Auth0: `https://<domain>/api/v2/`).
    public var managementAudience: String { settings.issuer + "api/v2/" }

    /// The `gty` claim of a client-credentials token.
    static let grantClaim = "client-credentials"

    /// `grant_type=client_credentials`: a token for `audience` with the requested scopes (all
    /// the client grant allows when none are asked for): for the Management API, or an RFC 9068
    /// access token for one of the APIs.
    /// - Throws: 403 `unauthorized_client` when the application may not use the grant; 403
    ///   `access_denied` for a missing or unknown audience, an application without a client
    ///   grant for it, or a scope the grant does not allow.
    public func issue(for application: Application, audience: String?, scope: String?) async throws -> TokenResponse {
        try application.requireGrant(GrantType.clientCredentials)
        guard let audience, !audience.isEmpty else {
            throw SesameError.accessDenied("No audience parameter was provided, and no default audience has been configured")
        }
        let api = audience == managementAudience ? nil : try await storage.api(named: audience, settings: settings)
        guard let grant = try await storage.clientGrant(clientID: application.clientID, audience: audience) else {
            throw SesameError.accessDenied("Client has not been authorized to access resource server \(audience)")
        }
        let requested = Self.names(scope) ?? grant.scope
        let refused = requested.filter { !grant.scope.contains($0) }
        guard refused.isEmpty else {
            throw SesameError.accessDenied("Client has not been granted scopes: \(refused.joined(separator: ", "))")
        }
        if let api { return try await issue(for: application, api: api, scopes: requested) }
        let now = clock.now().epochSeconds
        let lifetime = min(settings.jwtAccessTokenLifetime, settings.accessTokenLifetime)
        let claims = MachineTokenClaims(
            iss: settings.issuer, sub: application.clientID + "@clients", aud: audience, azp: application.clientID, iat: now,
            exp: now + Int64(lifetime), scope: requested.joined(separator: " "), gty: Self.grantClaim, jti: random.token(9))
        let token = try await keys.signer().sign(claims)
        await audit.record(.machineToken, client: application.clientID, detail: "audience \(audience)")
        return TokenResponse(accessToken: token, expiresIn: lifetime, idToken: nil, refreshToken: nil, scope: claims.scope)
    }

    /// An RFC 9068 access token of `application` for `api` (`typ` `at+jwt`, `client_id`,
    /// `permissions` in the `access_token_authz` dialect), living the API's token lifetime.
    private func issue(for application: Application, api: ResourceServer, scopes: [String]) async throws -> TokenResponse {
        let now = clock.now().epochSeconds
        let lifetime = api.tokenLifetime
        var claims = AccessTokenClaims(
            iss: settings.issuer, sub: application.clientID + "@clients", aud: [api.identifier], azp: application.clientID,
            iat: now, exp: now + Int64(lifetime), scope: scopes.joined(separator: " "), gty: Self.grantClaim,
            jti: random.token(9))
        claims.permissions = api.tokenDialect == .accessTokenAuthz ? scopes : nil
        let token = try await keys.signer().sign(claims, type: "at+jwt")
        await audit.record(.machineToken, client: application.clientID, detail: "audience \(api.identifier)")
        return TokenResponse(accessToken: token, expiresIn: lifetime, idToken: nil, refreshToken: nil, scope: claims.scope)
    }

    /// The scope names of a request, parsed as every scope is (``Scope``); nil when it asks for none.
    private static func names(_ scope: String?) -> [String]? {
        guard let scope, scope.contains(where: { $0 != " " && $0 != "+" }) else { return nil }
        return Scope(scope).names
    }

    /// The live management token `token` is, with the scopes it may use now: those it carries
    /// that its application's client grant still allows. Nil for anything else (a user's token,
    /// another audience, a forged or expired token, a deleted grant or application).
    public func verify(_ token: String) async throws -> MachineGrant? {
        guard token.utf8.count < 8192, token.split(separator: ".").count == 3,
            let claims = try? await keys.signer().verify(token, as: MachineTokenClaims.self),
            claims.iss == settings.issuer, claims.aud == managementAudience, claims.gty == Self.grantClaim,
            claims.sub == claims.azp + "@clients", claims.exp > clock.now().epochSeconds
        else { return nil }
        // Deleting the grant (or the application, which deletes its grants) ends its tokens,
        // and narrowing the grant narrows them at once.
        guard let grant = try await storage.clientGrant(clientID: claims.azp, audience: managementAudience) else {
            return nil
        }
        let scopes = Self.names(claims.scope)?.filter { grant.scope.contains($0) } ?? []
        return MachineGrant(clientID: claims.azp, scopes: scopes, issuedAt: Date(timeIntervalSince1970: Double(claims.iat)))
    }
}

/// A live machine token: its application and the Management API scopes it may use.
public struct MachineGrant: Sendable, Equatable {
    public let clientID: String
    public let scopes: [String]
    public let issuedAt: Date
}

/// The claims of a client-credentials access token, as Auth0's: a single `aud`.
public struct MachineTokenClaims: JWTPayload, Equatable {
    public var iss: String
    public var sub: String
    public var aud: String
    public var azp: String
    public var iat: Int64
    public var exp: Int64
    public var scope: String
    public var gty: String
    public var jti: String?

    /// Expiry is checked by ``MachineTokens`` against the injected clock, not here.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
