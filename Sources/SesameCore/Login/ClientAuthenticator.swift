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
}
