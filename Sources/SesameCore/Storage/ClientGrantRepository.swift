/// Client grants (``ClientGrant``): which scopes an application's `client_credentials` tokens
/// may carry for an audience.
public protocol ClientGrantRepository: Sendable {
    /// Stores a grant; throws `.alreadyExists` when the application has one for the audience.
    func createClientGrant(_ grant: ClientGrant) async throws
    /// The grant with this id, or nil.
    func clientGrant(id: String) async throws -> ClientGrant?
    /// The application's grant for `audience`, or nil.
    func clientGrant(clientID: String, audience: String) async throws -> ClientGrant?
    /// The grants of `clientID` and for `audience` (nil: any), oldest first.
    func clientGrants(clientID: String?, audience: String?) async throws -> [ClientGrant]
    /// Applies `transform` to the stored grant and saves its scope; throws `.notFound`.
    func updateClientGrant(id: String, _ transform: @escaping @Sendable (inout ClientGrant) throws -> Void) async throws
        -> ClientGrant
    /// Deletes a grant; throws `.notFound`.
    func deleteClientGrant(id: String) async throws
}
