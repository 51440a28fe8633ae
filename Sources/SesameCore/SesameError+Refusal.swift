import SesameAPI

extension SesameError {
    /// What Core refused, typed: hosted pages answer in their own words by switching on it,
    /// and Core decides its retries on it, so nothing branches on a wire code. The wire kind
    /// and code follow from it (``wire``), chosen in this one place.
    public enum Refusal: Hashable, Sendable {
        /// A wrong, used or expired code, link or token: Auth0's 403 `invalid_grant`.
        case wrongCredential
        /// A malformed request: 400 `invalid_request`.
        case malformedRequest
        /// `/passwordless/start` refused one of its properties.
        case passwordlessStart(PasswordlessStartRefusal)
        /// The channel has no message provider: 400 `email_provider_error` or `sms_provider_error`.
        case noProvider(ConnectionStrategy)
        /// The application may not use the grant: 403 `unauthorized_client`.
        case grantNotAllowed
        /// A sign-in by link on another device was refused.
        case link(LinkRefusal)

        /// The wire kind and `error` code of this refusal.
        var wire: (kind: Kind, code: Code) {
            switch self {
            case .wrongCredential: (.forbidden, .invalidGrant)
            case .malformedRequest: (.badRequest, .invalidRequest)
            case .passwordlessStart(let property): (.badRequest, property.code)
            case .noProvider(.sms): (.badRequest, .smsProviderError)
            case .noProvider(.email): (.badRequest, .emailProviderError)
            case .grantNotAllowed: (.forbidden, .unauthorizedClient)
            case .link(.pending): (.badRequest, .authorizationPending)
            case .link(.denied), .link(.wrongMatch): (.forbidden, .accessDenied)
            case .link(.expired): (.badRequest, .expiredToken)
            }
        }
    }

    /// A refusal, with its wire kind and code.
    public init(_ refusal: Refusal, _ message: String, logDetail: String? = nil) {
        let wire = refusal.wire
        self.init(wire.kind, wire.code, message, logDetail: logDetail)
        self.refusal = refusal
    }
}

/// The property of a `/passwordless/start` request that was refused.
public enum PasswordlessStartRefusal: Hashable, Sendable, CaseIterable {
    /// `client_id` is missing.
    case clientID
    /// `connection` is missing, unknown or disabled.
    case connection
    /// `email` is missing or malformed.
    case email
    /// `phone_number` is missing, malformed, of a country not allowed, or its budget is spent.
    case phoneNumber
    /// `send` is unknown or not possible on the channel.
    case send

    /// Auth0's wire code for it.
    var code: SesameError.Code {
        switch self {
        case .clientID: "bad.client_id"
        case .connection: "bad.connection"
        case .email: "bad.email"
        case .phoneNumber: "bad.phone_number"
        case .send: "bad.request"
        }
    }
}

/// Why a sign-in by link on another device did not finish.
public enum LinkRefusal: Hashable, Sendable, CaseIterable {
    /// The link has not been confirmed yet: poll again (`authorization_pending`).
    case pending
    /// The person refused the sign-in on the other device (`access_denied`).
    case denied
    /// The number typed on the other device did not match (`access_denied`).
    case wrongMatch
    /// The request expired or was already used (`expired_token`).
    case expired
}

/// Why a one-time code can never succeed, beyond "wrong": the person needs a new code rather
/// than another try. Sent as Auth0's error's extra `error_reason`.
public enum CodeFault: Hashable, Sendable {
    /// The code's lifetime is over.
    case expired
    /// The code took its last wrong guess.
    case attemptsExhausted

    /// The wire `error_reason`.
    var wire: String {
        switch self {
        case .expired: ErrorReason.codeExpired
        case .attemptsExhausted: ErrorReason.codeAttemptsExhausted
        }
    }
}
