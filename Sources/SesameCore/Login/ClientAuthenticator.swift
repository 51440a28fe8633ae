/// Identifies the calling application and, for confidential ones, checks its secret.
public struct ClientAuthenticator: Sendable {
    private let storage: any ApplicationRepository

    /// Creates an authenticator over `storage`.
    public init(storage: any ApplicationRepository) {
        self.storage = storage
    }

    /// The application for `clientID`, authenticated.
    /// - Throws: 401 `invalid_client` for an unknown client or a wrong or missing secret.
    public func authenticate(clientID: String?, clientSecret: String?) async throws -> Application {
        guard let clientID, !clientID.isEmpty else {
            throw SesameError.invalidClient("Missing required parameter: client_id")
        }
        guard let application = try await storage.application(clientID: clientID) else {
            throw SesameError.invalidClient("Unknown client.")
        }
        if let expected = application.clientSecret, application.isConfidential {
            guard let clientSecret else {
                throw SesameError.invalidClient("Client authentication is required: send client_secret.")
            }
            guard SecretHasher.constantTimeEquals(Array(clientSecret.utf8), Array(expected.utf8)) else {
                throw SesameError.invalidClient("Client authentication failed.")
            }
        } else if let clientSecret, application.clientSecret.map({ $0 != clientSecret }) ?? false {
            throw SesameError.invalidClient("Client authentication failed.")
        }
        return application
    }

    /// ``authenticate(clientID:clientSecret:)``, and the secret presented the way the
    /// application's `token_endpoint_auth_method` says when an operator set one.
    /// - Parameter method: how the request carried the secret (`none` when it carried none).
    /// - Throws: 401 `invalid_client` as ``authenticate(clientID:clientSecret:)``, or for a
    ///   secret in the body from an application set to `client_secret_basic` (or the reverse).
    public func authenticate(clientID: String?, clientSecret: String?, presentedWith method: TokenEndpointAuthMethod)
        async throws -> Application
    {
        let application = try await authenticate(clientID: clientID, clientSecret: clientSecret)
        if let required = application.authMethod, required != .none, method != required {
            throw SesameError.invalidClient("The client must authenticate with \(required.rawValue).")
        }
        return application
    }
}
