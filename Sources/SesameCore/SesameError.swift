/// A failure the API reports to clients, in Auth0's `{error, error_description}` terms.
///
/// The code is a stable machine string (`invalid_grant`, `bad.connection`, …); the
/// description is the exact text SDKs match (`Wrong email or verification code.`). Details
/// that must not reach clients go in ``logDetail``.
public struct SesameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure; the HTTP layer maps each kind to one status, with an exhaustive
    /// switch, so a new kind cannot go unmapped.
    public enum Kind: Hashable, Sendable, CaseIterable {
        /// 400: the request is malformed.
        case badRequest
        /// 401: the client or token is not authenticated.
        case unauthorized
        /// 403: authenticated but refused (Auth0 answers `invalid_grant` with 403).
        case forbidden
        /// 404: no such resource.
        case notFound
        /// 409: the resource exists.
        case conflict
        /// 413: the body is too large.
        case payloadTooLarge
        /// 429: a rate limit was hit; ``SesameError/rateLimit`` says which.
        case tooManyRequests
        /// 500: a bug; never caused by input.
        case internalError
        /// 503: a dependency (database, message provider) is unavailable.
        case unavailable
    }

    /// The wire `error` code: a stable machine string that clients match. Code compares these
    /// by their static members, never by spelling a string again.
    public struct Code: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        public let rawValue: String

        /// Wraps a wire code.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// A code written as a literal (`"bad.connection"`), for codes only one place uses.
        public init(stringLiteral value: String) {
            rawValue = value
        }

        public var description: String { rawValue }

        public static let invalidRequest: Code = "invalid_request"
        public static let invalidGrant: Code = "invalid_grant"
        public static let invalidClient: Code = "invalid_client"
        public static let invalidScope: Code = "invalid_scope"
        public static let invalidToken: Code = "invalid_token"
        public static let insufficientScope: Code = "insufficient_scope"
        /// RFC 9470: the login is too old for this change.
        public static let insufficientUserAuthentication: Code = "insufficient_user_authentication"
        public static let unauthorizedClient: Code = "unauthorized_client"
        public static let unsupportedGrantType: Code = "unsupported_grant_type"
        public static let unsupportedResponseType: Code = "unsupported_response_type"
        public static let accessDenied: Code = "access_denied"
        /// RFC 8628 §3.5: the person has not confirmed yet; poll again.
        public static let authorizationPending: Code = "authorization_pending"
        /// RFC 8628 §3.5: the request expired or was used; start again.
        public static let expiredToken: Code = "expired_token"
        /// Auth0's code for a blocked user.
        public static let unauthorized: Code = "unauthorized"
        public static let notFound: Code = "not_found"
        public static let tooManyRequests: Code = "too_many_requests"
        public static let tooManyAttempts: Code = "too_many_attempts"
        public static let temporarilyUnavailable: Code = "temporarily_unavailable"
        public static let serverError: Code = "server_error"
        public static let requestTooLarge: Code = "request_too_large"
        public static let emailProviderError: Code = "email_provider_error"
        public static let smsProviderError: Code = "sms_provider_error"
    }

    public let kind: Kind
    /// The wire `error` code.
    public let code: Code
    /// The wire `error_description`.
    public let message: String
    /// For 429: the limit, what is left and when the window resets.
    public let rateLimit: RateLimitStatus?
    /// Internal detail for the log, never sent.
    public let logDetail: String?
    /// The wire `error_reason` (``ErrorReason``), when an app can act on more than the code.
    public private(set) var reason: String?
    /// Why a code was refused, typed, for the pages that word it; sent as ``reason``.
    public private(set) var codeFault: CodeFault?
    /// What was refused, typed (``Refusal``), for callers that act on it; never sent.
    public internal(set) var refusal: Refusal?
    /// For DPoP refusals (RFC 9449): the challenge scheme and a fresh nonce to send back.
    public internal(set) var dpop: DPoPChallenge?

    /// Creates an error.
    public init(_ kind: Kind, _ code: Code, _ message: String, rateLimit: RateLimitStatus? = nil, logDetail: String? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.rateLimit = rateLimit
        self.logDetail = logDetail
    }

    /// The same error, telling the client why (`error_reason`).
    public func because(_ reason: String) -> SesameError {
        var copy = self
        copy.reason = reason
        return copy
    }

    /// The same error, telling the client why a code is dead (`error_reason`).
    public func because(_ fault: CodeFault) -> SesameError {
        var copy = because(fault.wire)
        copy.codeFault = fault
        return copy
    }

    public var description: String { "\(code): \(message)" + (logDetail.map { " (\($0))" } ?? "") }

    /// Equality on code, message and reason: what a client sees.
    public static func == (lhs: SesameError, rhs: SesameError) -> Bool {
        lhs.kind == rhs.kind && lhs.code == rhs.code && lhs.message == rhs.message && lhs.reason == rhs.reason
    }
}

extension SesameError {
    /// 400 `invalid_request`.
    public static func invalidRequest(_ message: String) -> SesameError { .init(.malformedRequest, message) }
    /// 403 `invalid_grant`, Auth0's answer for any bad code, token or grant.
    public static func invalidGrant(_ message: String, logDetail: String? = nil) -> SesameError {
        .init(.wrongCredential, message, logDetail: logDetail)
    }
    /// 401 `invalid_client`.
    public static func invalidClient(_ message: String) -> SesameError { .init(.unauthorized, .invalidClient, message) }
    /// 403 `unauthorized_client`, for a grant the application may not use.
    public static func grantNotAllowed(_ grant: String) -> SesameError {
        .init(.grantNotAllowed, "Grant type '\(grant)' not allowed for the client.")
    }
    /// 403 `access_denied`.
    public static func accessDenied(_ message: String) -> SesameError { .init(.forbidden, .accessDenied, message) }
    /// 401 `unauthorized`: the user is blocked.
    public static let userBlocked = SesameError(.unauthorized, .unauthorized, "user is blocked")
    /// 503 `temporarily_unavailable`.
    public static func unavailable(_ logDetail: String) -> SesameError {
        .init(
            .unavailable, .temporarilyUnavailable, "The service is temporarily unavailable. Try again shortly.",
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
        (self.limit, self.remaining, self.resetEpochSeconds) = (limit, remaining, resetEpochSeconds)
    }
}
