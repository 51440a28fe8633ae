/// Auth0's error shape: `{"error": "<code>", "error_description": "<text>"}`, plus Sesame's
/// optional `error_reason` where an app can act on more than the code (`code_expired`).
public struct ErrorBody: Codable, Sendable, Equatable {
    public var error: String
    public var errorDescription: String
    /// Why, in a stable machine string an app can branch on, when the description alone is
    /// kept identical for Auth0 SDKs that match its exact text (``ErrorReason``).
    public var errorReason: String?

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case errorReason = "error_reason"
    }

    /// Creates an error body.
    public init(error: String, errorDescription: String, errorReason: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription
        self.errorReason = errorReason
    }
}

/// The values of ``ErrorBody/errorReason``.
public enum ErrorReason {
    /// The one-time code's lifetime is over: ask for a new one.
    public static let codeExpired = "code_expired"
    /// The one-time code took its last wrong guess and is dead: ask for a new one.
    public static let codeAttemptsExhausted = "code_attempts_exhausted"
}
