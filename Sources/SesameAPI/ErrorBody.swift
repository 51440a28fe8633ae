/// Auth0's error shape: `{"error": "<code>", "error_description": "<text>"}`.
public struct ErrorBody: Codable, Sendable, Equatable {
    public var error: String
    public var errorDescription: String

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }

    /// Creates an error body.
    public init(error: String, errorDescription: String) {
        self.error = error
        self.errorDescription = errorDescription
    }
}
