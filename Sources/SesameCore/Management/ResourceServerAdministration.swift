import Foundation
public import Logging

/// What operators do to APIs (`/api/v2/resource-servers`, `sesame admin apis`): each API an
/// `audience` may name, with its permissions and the shape of its access tokens. Each change is
/// audited.
public struct ResourceServerAdministration: Sendable, OperatorService {
    let context: OperatorContext
    /// Sesame's own Management API, which is no stored API and cannot be made one.
    let managementAudience: String
    /// The built-in My Account API (``LoginSettings/myAccountAudience``), which a stored API
    /// could not change: its identifier is refused as the Management API's is.
    let myAccountAudience: String?

    /// Creates the service over `storage`.
    public init(
        storage: any SesameStorage, clock: any SesameClock, random: any RandomSource, managementAudience: String,
        myAccountAudience: String? = nil, logger: Logger = Logger(label: "sesame")
    ) {
        context = OperatorContext(storage: storage, clock: clock, random: random, logger: logger)
        self.managementAudience = managementAudience
        self.myAccountAudience = myAccountAudience
    }

    /// Whether `identifier` names one of Sesame's own APIs (also the My Account API without its last `/`).
    private func isBuiltIn(_ identifier: String) -> Bool {
        identifier == managementAudience || myAccountAudience.map { LoginSettings.names(myAccount: $0, identifier) } == true
    }

    /// Creates an API named by `identifier`, with Auth0's defaults for what `changes` leaves out.
    /// - Throws: 400 for a bad identifier or setting; 409 when the identifier is taken.
    public func create(identifier: String, _ changes: ResourceServerChanges) async throws -> ResourceServer {
        guard !identifier.isEmpty, identifier.count <= 600, !identifier.contains(where: \.isWhitespace) else {
            throw SesameError.invalidRequest("identifier must be 1 to 600 characters without spaces.")
        }
        guard !isBuiltIn(identifier) else { throw Self.conflict }
        var api = ResourceServer(id: random.hex(12), identifier: identifier, name: identifier, createdAt: clock.now())
        try changes.apply(to: &api)
        do {
            try await storage.createResourceServer(api)
        } catch let error as StorageError where error.isAlreadyExists {
            throw Self.conflict
        }
        await audit.record(.accessControlChanged, detail: "api \(api.id) created: \(identifier)")
        return api
    }

    /// Every API, oldest first; with `includingSystem`, the Management API (``systemAPI``)
    /// first, as Auth0 lists it.
    public func list(includingSystem: Bool = false) async throws -> [ResourceServer] {
        try await (includingSystem ? [systemAPI] : []) + storage.resourceServers()
    }

    /// The API with this id (or, as Auth0 accepts, this identifier), the system API included.
    /// - Throws: 404 for an unknown API.
    public func api(_ id: String) async throws -> ResourceServer {
        if let system = system(id) { return system }
        if let api = try await storage.resourceServer(id: id) { return api }
        guard let api = try await storage.resourceServer(identifier: id) else { throw Self.notFound(id) }
        return api
    }

    /// Applies `changes`; the identifier never changes.
    /// - Throws: 404 for an unknown API; 400 for a bad setting; 403 for the system API.
    public func update(_ id: String, _ changes: ResourceServerChanges) async throws -> ResourceServer {
        try refuseSystem(id, "changed")
        let id = try await api(id).id
        do {
            let api = try await storage.updateResourceServer(id: id) { try changes.apply(to: &$0) }
            await audit.record(.accessControlChanged, detail: "api \(id) updated")
            return api
        } catch let error as StorageError where error.isNotFound {
            throw Self.notFound(id)
        }
    }

    /// Deletes an API, with the permissions given on it and the client grants for it.
    /// - Throws: 404 for an unknown API; 403 for the system API.
    public func delete(_ id: String) async throws {
        try refuseSystem(id, "deleted")
        let api = try await api(id)
        do {
            try await storage.deleteResourceServer(id: api.id)
        } catch let error as StorageError where error.isNotFound {
            throw Self.notFound(id)
        }
        await audit.record(.accessControlChanged, detail: "api \(api.id) deleted: \(api.identifier)")
    }

    /// Stores an API for each identifier of the `audiences` setting that has none, as it has
    /// always behaved (every scope asked for, refresh tokens, the JWT lifetime), so operators
    /// see and change it like any other. Idempotent; safe on many instances at once.
    public func materialise(_ settings: LoginSettings) async throws {
        // The Management API is Sesame's own and never a stored API, whatever the list says.
        for identifier in settings.audiences where !isBuiltIn(identifier) {
            guard try await storage.resourceServer(identifier: identifier) == nil else { continue }
            var api = ResourceServer.configured(identifier, settings: settings)
            (api.id, api.createdAt) = (random.hex(12), clock.now())
            do {
                try await storage.createResourceServer(api)
            } catch let error as StorageError where error.isAlreadyExists {
                continue  // another instance stored it first
            }
        }
    }

    static let conflict = SesameError(.conflict, "conflict", "A resource server with this identifier already exists.")

    private static func notFound(_ id: String) -> SesameError {
        SesameError(.notFound, .notFound, "No resource server \(id).")
    }
}

/// The settings of an API an operator gives; nil leaves a setting as it is.
public struct ResourceServerChanges: Sendable, Equatable {
    public var name: String?
    public var scopes: [ResourceServerScope]?
    public var tokenLifetime: Int?
    public var tokenLifetimeForWeb: Int?
    public var signingAlg: String?
    public var enforcePolicies: Bool?
    public var tokenDialect: TokenDialect?
    public var allowOfflineAccess: Bool?

    /// Creates changes.
    public init(
        name: String? = nil, scopes: [ResourceServerScope]? = nil, tokenLifetime: Int? = nil,
        tokenLifetimeForWeb: Int? = nil, signingAlg: String? = nil, enforcePolicies: Bool? = nil,
        tokenDialect: TokenDialect? = nil, allowOfflineAccess: Bool? = nil
    ) {
        self.name = name
        self.scopes = scopes
        self.tokenLifetime = tokenLifetime
        self.tokenLifetimeForWeb = tokenLifetimeForWeb
        self.signingAlg = signingAlg
        self.enforcePolicies = enforcePolicies
        self.tokenDialect = tokenDialect
        self.allowOfflineAccess = allowOfflineAccess
    }

    /// Applies the changes to `api` and checks the result.
    /// - Throws: 400 for an empty name, a bad scope value, a lifetime out of range (1 s to
    ///   30 days; the web one no longer than the other) or an algorithm other than RS256.
    func apply(to api: inout ResourceServer) throws {
        if let name {
            guard !name.isEmpty, name.count <= 200 else { throw SesameError.invalidRequest("name must be 1 to 200 characters.") }
            api.name = name
        }
        if let scopes {
            try Self.check(scopes)
            api.scopes = scopes
        }
        if let tokenLifetime {
            api.tokenLifetime = tokenLifetime
            // Auth0 keeps the web lifetime within the other when only that one is given.
            if tokenLifetimeForWeb == nil { api.tokenLifetimeForWeb = min(api.tokenLifetimeForWeb, tokenLifetime) }
        }
        if let tokenLifetimeForWeb { api.tokenLifetimeForWeb = tokenLifetimeForWeb }
        guard (1...2_592_000).contains(api.tokenLifetime), (1...api.tokenLifetime).contains(api.tokenLifetimeForWeb) else {
            throw SesameError.invalidRequest(
                "token_lifetime must be from 1 to 2592000 seconds and token_lifetime_for_web from 1 to token_lifetime.")
        }
        if let signingAlg {
            // Sesame signs with its RS256 keys only; an API told otherwise would refuse every token.
            guard signingAlg == "RS256" else { throw SesameError.invalidRequest("signing_alg must be RS256.") }
            api.signingAlg = signingAlg
        }
        api.enforcePolicies = enforcePolicies ?? api.enforcePolicies
        api.tokenDialect = tokenDialect ?? api.tokenDialect
        api.allowOfflineAccess = allowOfflineAccess ?? api.allowOfflineAccess
    }

    private static func check(_ scopes: [ResourceServerScope]) throws {
        var seen = Set<String>()
        for scope in scopes {
            guard !scope.value.isEmpty, scope.value.count <= 280, !scope.value.contains(where: \.isWhitespace),
                seen.insert(scope.value).inserted
            else {
                throw SesameError.invalidRequest("Each scope value must be unique, 1 to 280 characters, without spaces.")
            }
        }
    }
}
