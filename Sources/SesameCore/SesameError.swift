/// A failure the API reports to clients, in Auth0's `{error, error_description}` terms.
///
/// The code is a stable machine string (`invalid_grant`, `bad.connection`, …); the
/// description is the exact text SDKs match (`Wrong email or verification code.`). Details
/// that must not reach clients go in ``logDetail``.
public struct SesameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure; the HTTP layer maps each kind to one status.
    public struct Kind: Hashable, Sendable {
        fileprivate enum Base: Hashable, Sendable {
            case badRequest, unauthorized, forbidden, notFound, conflict, tooManyRequests, unavailable
            case payloadTooLarge, internalError
        }
        fileprivate let base: Base
        /// 400: the request is malformed.
        public static let badRequest = Kind(base: .badRequest)
        /// 401: the client or token is not authenticated.
        public static let unauthorized = Kind(base: .unauthorized)
        /// 403: authenticated but refused (Auth0 answers `invalid_grant` with 403).
        public static let forbidden = Kind(base: .forbidden)
        /// 404: no such resource.
        public static let notFound = Kind(base: .notFound)
        /// 409: the resource exists.
        public static let conflict = Kind(base: .conflict)
        /// 413: the body is too large.
        public static let payloadTooLarge = Kind(base: .payloadTooLarge)
        /// 429: a rate limit was hit; ``SesameError/rateLimit`` says which.
        public static let tooManyRequests = Kind(base: .tooManyRequests)
        /// 500: a bug; never caused by input.
        public static let internalError = Kind(base: .internalError)
        /// 503: a dependency (database, message provider) is unavailable.
        public static let unavailable = Kind(base: .unavailable)
    }

    public let kind: Kind
    /// The wire `error` code.
    public let code: String
    /// The wire `error_description`.
    public let message: String
    /// For 429: the limit, what is left and when the window resets.
    public let rateLimit: RateLimitStatus?
    /// Internal detail for the log, never sent.
    public let logDetail: String?

    /// Creates an error.
    public init(_ kind: Kind, _ code: String, _ message: String, rateLimit: RateLimitStatus? = nil, logDetail: String? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.rateLimit = rateLimit
        self.logDetail = logDetail
    }

    public var description: String { "\(code): \(message)" + (logDetail.map { " (\($0))" } ?? "") }

    /// Equality on code and message: what a client sees.
    public static func == (lhs: SesameError, rhs: SesameError) -> Bool {
        lhs.kind == rhs.kind && lhs.code == rhs.code && lhs.message == rhs.message
    }
}

extension SesameError {
    /// 400 `invalid_request`.
    public static func invalidRequest(_ message: String) -> SesameError { .init(.badRequest, "invalid_request", message) }
    /// 403 `invalid_grant`, Auth0's answer for any bad code, token or grant.
    public static func invalidGrant(_ message: String, logDetail: String? = nil) -> SesameError {
        .init(.forbidden, "invalid_grant", message, logDetail: logDetail)
    }
    /// 401 `invalid_client`.
    public static func invalidClient(_ message: String) -> SesameError { .init(.unauthorized, "invalid_client", message) }
    /// 403 `unauthorized_client`, for a grant the application may not use.
    public static func grantNotAllowed(_ grant: String) -> SesameError {
        .init(.forbidden, "unauthorized_client", "Grant type '\(grant)' not allowed for the client.")
    }
    /// 403 `access_denied`.
    public static func accessDenied(_ message: String) -> SesameError { .init(.forbidden, "access_denied", message) }
    /// 401 `unauthorized`: the user is blocked.
    public static let userBlocked = SesameError(.unauthorized, "unauthorized", "user is blocked")
    /// 503 `temporarily_unavailable`.
    public static func unavailable(_ logDetail: String) -> SesameError {
        .init(.unavailable, "temporarily_unavailable", "The service is temporarily unavailable. Try again shortly.",
              logDetail: logDetail)
    }
}

/// The state of a rate-limit counter, sent as `X-RateLimit-*` headers.
public struct RateLimitStatus: Sendable, Equatable {
    public var limit: Int
    public var remaining: Int
    /// When the window resets, in whole seconds since 1970.
    public var resetEpochSeconds: Int64

    /// Creates a status.
    public init(limit: Int, remaining: Int, resetEpochSeconds: Int64) {
        self.limit = limit
        self.remaining = remaining
        self.resetEpochSeconds = resetEpochSeconds
    }
}
