import Foundation
public import Logging

/// What operators do to client grants (`/api/v2/client-grants`): which Management API scopes
/// a machine-to-machine application's `client_credentials` tokens may carry. Each change is
/// audited against the application.
public struct ClientGrantAdministration: Sendable, OperatorService {
    let context: OperatorContext
    /// Sesame's own Management API; the other audiences are the stored APIs.
    let managementAudience: String

    /// Creates the service over `storage`.
    public init(
        storage: any SesameStorage, clock: any SesameClock, random: any RandomSource, managementAudience: String,
        logger: Logger = Logger(label: "sesame")
    ) {
        context = OperatorContext(storage: storage, clock: clock, random: random, logger: logger)
        self.managementAudience = managementAudience
    }

    /// Grants `clientID` the `scope` of `audience`.
    /// - Throws: 404 for an unknown application or an audience that is neither the Management
    ///   API nor a stored API; 400 for a scope the audience does not define; 409 when the
    ///   application has a grant for the audience.
    public func create(clientID: String, audience: String, scope: [String]) async throws -> ClientGrant {
        guard try await storage.application(clientID: clientID) != nil else {
            throw SesameError(.notFound, .notFound, "No application has the client_id \(clientID).")
        }
        try await validate(scope, of: audience)
        let grant = ClientGrant(
            id: "cgr_" + random.alphanumeric(16), clientID: clientID, audience: audience, scope: scope, createdAt: clock.now())
        do {
            try await storage.createClientGrant(grant)
        } catch let error as StorageError where error.isAlreadyExists {
            throw SesameError(.conflict, "conflict", "A client grant for this client and resource server already exists.")
        }
        await audit.record(.applicationUpdated, client: clientID, detail: "client grant \(grant.id) created: \(scope)")
        return grant
    }

    /// The grants of `clientID` and for `audience` (nil: any), oldest first.
    public func list(clientID: String?, audience: String?) async throws -> [ClientGrant] {
        try await storage.clientGrants(clientID: clientID, audience: audience)
    }

    /// The grant with this id.
    /// - Throws: 404 for an unknown grant.
    public func grant(_ id: String) async throws -> ClientGrant {
        guard let grant = try await storage.clientGrant(id: id) else { throw Self.notFound(id) }
        return grant
    }

    /// Replaces a grant's scope; tokens issued before carry only what the grant now allows.
    /// - Throws: 404 for an unknown grant; 400 for an unknown scope.
    public func update(_ id: String, scope: [String]) async throws -> ClientGrant {
        try await validate(scope, of: try await grant(id).audience)
        let grant = try await notFoundAsError(id) {
            try await storage.updateClientGrant(id: id) { $0.scope = scope }
        }
        await audit.record(.applicationUpdated, client: grant.clientID, detail: "client grant \(id) updated: \(scope)")
        return grant
    }

    /// Deletes a grant; the application's tokens for its audience stop working at once.
    /// - Throws: 404 for an unknown grant.
    public func delete(_ id: String) async throws {
        let grant = try await grant(id)
        try await notFoundAsError(id) { try await storage.deleteClientGrant(id: id) }
        await audit.record(.applicationUpdated, client: grant.clientID, detail: "client grant \(id) deleted")
    }

    /// Refuses a scope `audience` does not define, so a typo cannot make a grant that silently
    /// lacks one.
    private func validate(_ scope: [String], of audience: String) async throws {
        if audience == managementAudience { return try AdminTokens.validate(scopes: scope) }
        guard let api = try await storage.resourceServer(identifier: audience) else {
            throw SesameError(.notFound, .notFound, "No resource server has the identifier \(audience).")
        }
        if let unknown = scope.first(where: { !api.defines($0) }) {
            throw SesameError.invalidRequest("The resource server \(audience) does not define the scope \(unknown).")
        }
    }

    private static func notFound(_ id: String) -> SesameError {
        SesameError(.notFound, .notFound, "No client grant \(id).")
    }

    private func notFoundAsError<T>(_ id: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StorageError where error.isNotFound {
            throw Self.notFound(id)
        }
    }
}
