/// How `/passwordless/start` should deliver the secret.
public enum SendMode: String, Sendable, CaseIterable {
    case code, link
    case linkIOS = "link_ios"
    case linkAndroid = "link_android"
}

/// A `/passwordless/start` request, already decoded (absent, `null` and `""` are all nil).
public struct PasswordlessStartRequest: Sendable {
    public var clientID: String?
    public var clientSecret: String?
    public var connection: String?
    public var email: String?
    public var phoneNumber: String?
    public var send: String?
    /// Authorize parameters a web magic link carries to `/passwordless/verify_redirect`.
    public var authParams: [String: String]
    public var ip: String
    /// The application, when the hosted login page already identified it by its registered
    /// callback URL: a confidential application's page has no client secret to send.
    public var hostedApplication: Application?
    /// The ``LinkRequest`` a web link belongs to, carried by the link as `request` so the page
    /// that opens it asks for the match code.
    public var linkRequestID: String?
    /// The `x-request-language` header (Auth0's way to ask for a message language), as sent.
    public var requestLanguage: String?
    /// The `Accept-Language` header, as sent: the message language when no other is asked for.
    public var acceptLanguage: String?

    /// Creates a start request.
    public init(
        clientID: String?, clientSecret: String?, connection: String?, email: String?, phoneNumber: String?,
        send: String?, authParams: [String: String] = [:], ip: String
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.connection = connection
        self.email = email
        self.phoneNumber = phoneNumber
        self.send = send
        self.authParams = authParams
        self.ip = ip
    }
}

/// The identical answer `/passwordless/start` gives for known and unknown users.
public struct PasswordlessStartResult: Sendable, Equatable {
    /// A random id for this request (Auth0's `_id`).
    public var id: String
    public var connection: ConnectionStrategy
    public var recipient: String
    /// The application that asked.
    public var clientID: String
    /// The per-IP counter after this request, for `X-RateLimit-*` headers.
    public var rateLimit: RateLimitStatus
}

/// The secret a person presents: connection (`realm`), address, and the code or link token.
public struct PasswordlessCredentials: Sendable {
    public var connection: String?
    public var username: String?
    public var code: String?
    /// The address of the client presenting them: wrong codes are budgeted per source, so a
    /// stranger's guesses cannot lock the person out (``FailureBudget``).
    public var ip: String?

    /// Creates credentials.
    public init(connection: String?, username: String?, code: String?, ip: String? = nil) {
        self.connection = connection
        self.username = username
        self.code = code
        self.ip = ip
    }

    /// These credentials presented from `ip`, unless they already name their source.
    public func from(_ ip: String?) -> PasswordlessCredentials {
        var credentials = self
        credentials.ip = credentials.ip ?? ip
        return credentials
    }
}
