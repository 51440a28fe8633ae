public import Foundation

/// What a machine-to-machine application may ask for with `client_credentials` (Auth0's client
/// grant): for one `audience`, the scopes its tokens may carry. Without a grant for an audience
/// the application gets no token for it.
public struct ClientGrant: Sendable, Codable, Equatable {
    /// `cgr_` and 16 letters or digits.
    public var id: String
    public var clientID: String
    /// The API the grant is for; the Management API is `<issuer>api/v2/`.
    public var audience: String
    /// The scopes a token may carry, in the order given.
    public var scope: [String]
    public var createdAt: Date

    /// Creates a client grant.
    public init(id: String, clientID: String, audience: String, scope: [String], createdAt: Date) {
        self.id = id
        self.clientID = clientID
        self.audience = audience
        self.scope = scope
        self.createdAt = createdAt
    }
}
