/// Where ``HTTPGatewaySender`` posts texts: Auth0's legacy "custom SMS gateway" settings.
///
/// ```swift
/// var gateway = HTTPGatewayConfiguration(url: "https://sms.example.com/send", sender: "Example")
/// gateway.authentication = .init(subject: "sesame", audience: "https://sms.example.com", secret: secret)
/// ```
public struct HTTPGatewayConfiguration: Sendable, Equatable {
    /// Settings for the bearer token sent with every request (Auth0's `gateway_authentication`).
    public struct Authentication: Sendable, Equatable {
        /// The token's `sub` claim.
        public var subject: String
        /// The token's `aud` claim.
        public var audience: String
        /// The HS256 signing secret.
        public var secret: String
        /// True when ``secret`` is base64url text whose decoded bytes are the key
        /// (Auth0's `secret_base64_encoded`).
        public var secretIsBase64URLEncoded: Bool

        /// Creates token settings.
        public init(subject: String, audience: String, secret: String, secretIsBase64URLEncoded: Bool = false) {
            self.subject = subject
            self.audience = audience
            self.secret = secret
            self.secretIsBase64URLEncoded = secretIsBase64URLEncoded
        }
    }

    /// The gateway endpoint that receives the JSON POST.
    public var url: String
    /// The `sender` field (Auth0's `from`); omitted from the JSON when nil.
    public var sender: String?
    /// The bearer token settings; no `Authorization` header when nil.
    public var authentication: Authentication?
    /// How long a signed token stays valid.
    public var tokenLifetime: Duration
    /// The longest one request may take.
    public var timeout: Duration

    /// Creates a gateway configuration.
    public init(
        url: String,
        sender: String? = nil,
        authentication: Authentication? = nil,
        tokenLifetime: Duration = .seconds(300),
        timeout: Duration = .seconds(30)
    ) {
        self.url = url
        self.sender = sender
        self.authentication = authentication
        self.tokenLifetime = tokenLifetime
        self.timeout = timeout
    }
}
