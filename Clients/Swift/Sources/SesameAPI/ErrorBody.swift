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

/// Auth0's Management API error shape (`/api/v2/…`): `{statusCode, error, message, errorCode}`,
/// where `error` is the HTTP reason phrase (`Bad Request`), `errorCode` Sesame's stable code and
/// `message` its description. `error_description` (and `error_reason`) stay as well, so clients
/// written against the first shape keep reading the description where they found it.
public struct ManagementErrorBody: Codable, Sendable, Equatable {
    public var statusCode: Int
    public var error: String
    public var message: String
    public var errorCode: String
    public var errorDescription: String
    public var errorReason: String?

    enum CodingKeys: String, CodingKey {
        case statusCode, error, message, errorCode
        case errorDescription = "error_description"
        case errorReason = "error_reason"
    }

    /// Creates a body; `message` is also the `error_description`.
    public init(statusCode: Int, error: String, errorCode: String, message: String, errorReason: String? = nil) {
        self.statusCode = statusCode
        self.error = error
        self.message = message
        self.errorCode = errorCode
        self.errorDescription = message
        self.errorReason = errorReason
    }
}
