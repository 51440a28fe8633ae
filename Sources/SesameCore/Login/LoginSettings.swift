public import Foundation

/// Domain settings that do not belong to one connection: the issuer, token lifetimes and the
/// `/passwordless/start` limits. Built once at start from configuration.
public struct LoginSettings: Sendable, Equatable {
    /// The public base URL, always with a trailing slash (`iss` of every token).
    public var issuer: String
    /// id_token lifetime in seconds (Auth0: 36000).
    public var idTokenLifetime: Int = 36000
    /// Opaque access token lifetime in seconds (Auth0: 86400). Sesame checks these on every
    /// use, so revoking their family or user ends them at once.
    public var accessTokenLifetime: Int = 86400
    /// JWT access token lifetime in seconds, capped by ``accessTokenLifetime``. APIs verify
    /// these offline and cannot see a revocation, so they live an hour by default.
    public var jwtAccessTokenLifetime: Int = 3600
    /// Refresh token lifetime in seconds; each rotation starts a new period.
    public var refreshTokenLifetime: Int = 30 * 86400
    /// Authorization code lifetime in seconds.
    public var authorizationCodeLifetime: Int = 300
    /// Seconds within which a rotated refresh token may be presented once more and get the
    /// same replacement (a mobile client whose response was lost); later reuse revokes the family.
    public var refreshReuseInterval: TimeInterval = 10
    /// How recent a login must be (seconds since `auth_time`) to register device keys or
    /// change passkeys with an access token.
    public var recentLoginWindow: Int = 300
    /// API identifiers for which an `audience` gets a JWT access token.
    public var audiences: [String] = []
    /// `/passwordless/start` calls per IP per window (Auth0: 50 per hour).
    public var startLimitPerIP = RateLimitRule(limit: 50, windowSeconds: 3600)
    /// `/passwordless/start` calls per recipient per window (5 per 15 minutes).
    public var startLimitPerRecipient = RateLimitRule(limit: 5, windowSeconds: 900)
    /// Refused grants (`/oauth/token`, `/oauth/ro`) one client address may cause per window (60
    /// a minute): past it every grant from the address answers 429 before any other work, so
    /// a flood of bad assertions or codes cannot turn into audit rows and webhook calls.
    public var grantRefusalLimitPerIP = RateLimitRule(limit: 60, windowSeconds: 60)
    /// Wrong codes a recipient may make across all of its codes, per window (10 an hour, 30 a
    /// day): past either, every attempt is refused until the window ends.
    /// These budgets are per source (recipient and client address), so a stranger cannot lock
    /// the person out; ``failureCeiling`` bounds all sources together.
    public var failureBudget = [RateLimitRule(limit: 10, windowSeconds: 3600), RateLimitRule(limit: 30, windowSeconds: 86400)]
    /// Wrong codes a recipient may get from all sources together, per window (100 an hour, 300
    /// a day): the bound on guessing from many addresses at once.
    public var failureCeiling = [
        RateLimitRule(limit: 100, windowSeconds: 3600), RateLimitRule(limit: 300, windowSeconds: 86400),
    ]
    /// `/passkey/register` calls per IP per window.
    public var passkeySignupLimitPerIP = RateLimitRule(limit: 50, windowSeconds: 3600)
    /// `/passkey/challenge` calls per IP per window (the hosted page asks one per view).
    public var passkeyChallengeLimitPerIP = RateLimitRule(limit: 300, windowSeconds: 3600)
    /// Seconds between sweeps of expired rows (challenges, sessions, rate-limit windows, …).
    public var sweepInterval: TimeInterval = 300
    /// The id_token claim that carries the user's `app_metadata` (`tokens.app_metadata_claim`,
    /// a URL such as `https://example.com/app_metadata`); nil: not included.
    public var appMetadataClaim: String?
    /// How long audit events are kept (`audit.retention_days`).
    public var auditRetention: TimeInterval = 90 * 86400
    /// Messages the console outbox keeps.
    public var outboxKeep: Int = 200
    /// The WebAuthn RP ID; nil means the issuer's host.
    public var passkeyRPID: String?
    /// Origins accepted in passkey ceremonies besides the issuer's origin and those that
    /// applications declare (their allowed web origins and Android app signatures).
    public var passkeyOrigins: [String] = []
    /// Seconds between reloads of the signing keys, so a rotation reaches every instance.
    public var keyRefreshInterval: TimeInterval = 60
    /// Seconds a browser session lives without use (Auth0: 3 days).
    public var sessionIdleLifetime: Int = 3 * 86400
    /// Seconds a browser session lives at most, however active (Auth0: 7 days).
    public var sessionLifetime: Int = 7 * 86400
    /// Which countries may be texted and how many texts an hour (the SMS-pumping defence).
    public var smsCountries = SMSCountryPolicy()
    /// How the outbox's worker claims, retries and gives up.
    public var delivery = DeliveryWorkerSettings()
    /// Device-key login rules (key types, assertion lifetime, clock skew).
    public var deviceKeys = DeviceKeyPolicy()

    /// Creates settings with the defaults docs/design.md explains ("Security defaults").
    public init(issuer: String) {
        self.issuer = issuer.hasSuffix("/") ? issuer : issuer + "/"
    }

    /// The issuer without its trailing slash, for building URLs.
    public var baseURL: String { String(issuer.dropLast()) }
}

/// A fixed-window limit.
public struct RateLimitRule: Sendable, Equatable {
    public var limit: Int
    public var windowSeconds: Int

    /// Creates a rule.
    public init(limit: Int, windowSeconds: Int) {
        self.limit = limit
        self.windowSeconds = windowSeconds
    }
}
