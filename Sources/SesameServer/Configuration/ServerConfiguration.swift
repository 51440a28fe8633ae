import Foundation
import NIOCore
import NIOPosix
public import SesameCore

/// Everything `sesame serve` reads at start. Sources, highest first: command-line flags,
/// `SESAME_*` environment variables, the JSON config file (`--config`, `SESAME_CONFIG`, or
/// `<data-dir>/sesame.json` when present), the settings stored in the database
/// (``SharedSettings``, `sesame admin settings`), built-in defaults.
///
/// Keys (JSON path → environment variable; default):
/// - `port` → `SESAME_PORT` (3000); `host` → `SESAME_HOST` (127.0.0.1)
/// - `data_dir` → `SESAME_DATA_DIR` (./sesame-data); `database` → `SESAME_DATABASE` (<data_dir>/sesame.sqlite)
/// - `database_url` → `SESAME_DATABASE_URL` (none: a `postgres://` URL selects PostgreSQL),
///   `database_pool_size` → `SESAME_DATABASE_POOL_SIZE` (20), `database_timeout` →
///   `SESAME_DATABASE_TIMEOUT` (5 s: longer waits for PostgreSQL answer 503),
///   `database_prepared_statements` → `SESAME_DATABASE_PREPARED_STATEMENTS` (true: each statement
///   is planned once per connection; false for PgBouncer before 1.21 in transaction mode)
/// - `master_key_file` → `SESAME_MASTER_KEY_FILE` (none), `master_key` → `SESAME_MASTER_KEY` (none): the
///   key that seals signing keys, HMAC keys, client secrets and stored settings (``MasterKeySource``;
///   without either, SQLite keeps a generated `master.key` beside the database)
/// - `issuer` → `SESAME_ISSUER` (http://localhost:<port>/)
/// - `audiences` → `SESAME_AUDIENCES` (comma list of API identifiers; none)
/// - `trust_proxy` → `SESAME_TRUST_PROXY` (false: client IP from the socket, not X-Forwarded-For);
///   true believes `proxy_header` from proxies on loopback and private networks
/// - `trusted_proxies` → `SESAME_TRUSTED_PROXIES` (comma list of addresses and CIDR ranges whose
///   forwarding headers are believed instead; setting it implies `trust_proxy`). The client is
///   the rightmost forwarded address that is not a trusted proxy.
/// - `proxy_header` → `SESAME_PROXY_HEADER` (x-forwarded-for): the one header the proxies set,
///   `x-forwarded-for` or `forwarded` (RFC 7239); the other is ignored, since a proxy passes
///   it through as the client wrote it
/// - `webhook_allowed_hosts` → `SESAME_WEBHOOK_ALLOWED_HOSTS` (none): comma list of host names,
///   addresses and CIDR ranges webhook calls may reach although they are not public (loopback,
///   RFC 1918, link-local, unique-local, CGNAT); every other private address is refused, when
///   an endpoint is registered and after DNS resolution when each call is sent
/// - `http_idle_timeout` → `SESAME_HTTP_IDLE_TIMEOUT` (30 s): a connection without a complete
///   request for this long is closed (slow-header attacks hold no connection longer)
/// - `http_request_timeout` → `SESAME_HTTP_REQUEST_TIMEOUT` (30 s): a request whose headers and
///   body have not all arrived this long after its first byte is closed (a body trickled a
///   byte at a time counts as activity for the idle timeout, not for this)
/// - `http_max_connections_per_ip` → `SESAME_HTTP_MAX_CONNECTIONS_PER_IP` (64): open connections
///   one client address (IPv6: one /64) may hold; more are closed at once. Trusted proxies are
///   exempt (they carry many clients: cap per client at the proxy)
/// - `http_threads` → `SESAME_HTTP_THREADS` (half the cores, at least one): the threads that
///   read, parse and write connections; the others run the handlers, whose signatures are
///   most of a login
/// - `allow_console_delivery` → `SESAME_ALLOW_CONSOLE_DELIVERY` (false): a channel without a
///   provider prints its codes to the log only when this is true or Sesame is private: it
///   listens on loopback, its issuer is not https and no proxy is trusted; otherwise that
///   channel refuses to send
/// - `rate_limit.start_per_ip` (50) / `rate_limit.start_per_ip_window` (3600 s),
///   `rate_limit.start_per_recipient` (5) / `rate_limit.start_per_recipient_window` (900 s)
/// - `tokens.id_token_lifetime` (36000), `tokens.access_token_lifetime` (86400),
///   `tokens.refresh_token_lifetime` (2592000), `tokens.jwt_access_token_lifetime` (3600: JWT
///   access tokens for API audiences, which APIs check offline and so cannot see revocation)
/// - `tokens.refresh_reuse_interval` (10 s): a rotated refresh token presented again within it
///   gets the same replacement once (a lost response); later reuse revokes the family
/// - `sessions.idle_lifetime` (259200 s, 3 days) and `sessions.absolute_lifetime` (604800 s,
///   7 days): how long a browser session of the hosted page lives unused, and at most.
/// - `tokens.recent_login_window` (300 s): how recent a login must be to register a device key
///   or change passkeys with an access token
/// - `rate_limit.otp_failures_per_hour` (10) / `rate_limit.otp_failures_per_day` (30): wrong
///   codes per recipient from one client address across all its codes before its attempts are
///   refused until the window ends; `rate_limit.otp_failures_all_sources_per_hour` (100) /
///   `_per_day` (300): the same from all addresses together
/// - `rate_limit.passkey_register_per_ip` (50) / `rate_limit.passkey_challenge_per_ip` (300): per hour
/// - `sweep_interval` (300 s): how often each instance deletes expired rows
/// - `connections.email.*` and `connections.sms.*`: `code_length` (6, at least 6), `code_lifetime` (180),
///   `max_attempts` (3), `link_lifetime` (900), `disable_signup` (false)
/// - `connections.email.language` and `connections.sms.language` (en): the language of that
///   connection's messages when neither `x-request-language` nor `Accept-Language` names one
///   there are templates for (`sesame admin templates`)
/// - `connections.sms.default_country` (none): the country (`GB`) or calling code (`+44`) of
///   phone numbers typed on the hosted page without one
/// - `connections.sms.allowed_countries` (all), `connections.sms.country_hourly_limit` (200),
///   `connections.sms.hourly_limit` (1000): the SMS-pumping defence
/// - `email.provider` (console | smtp | http) with `email.smtp.{host,port,username,password,security,from}`
///   or `email.gateway.{url,secret,subject,audience}` (the sender is `email.smtp.from`)
/// - `sms.provider` (console | twilio | http) with `sms.twilio.{account_sid,auth_token,from,
///   messaging_service_sid,base_url}` or `sms.gateway.{url,secret,subject,audience,sender}`
/// - `rp_id` → `SESAME_RP_ID` (the issuer's host): the WebAuthn relying party ID
/// - `passkey_origins` → `SESAME_PASSKEY_ORIGINS` (comma list of extra origins accepted in
///   passkey ceremonies; the issuer's origin and applications' origins are always accepted)
/// - `device_keys.allow_rsa1024` → `SESAME_DEVICE_KEYS_ALLOW_RSA1024` (false: device keys must be
///   P-256 or RSA 2048–4096; true also admits the 1024-bit RSA keys TouchIDAuth generates)
/// - `signing_keys.refresh_interval` → `SESAME_SIGNING_KEYS_REFRESH_INTERVAL` (60 s): how often
///   each instance reloads the signing keys, so a rotation reaches it without a restart
/// - `delivery.retry_delay` (2 s) and `delivery.max_retry_delay` (300 s): the outbox's
///   backoff after a transient failure, doubling from the first to the second (with jitter)
/// - `log_level` (info); `log_format` (text | json: one JSON object per line with timestamp,
///   level, message and the request's `request_id`)
/// - `metrics.port` (none) and `metrics.host` (127.0.0.1): a listener serving only `/metrics`;
///   `metrics.token` (none): a bearer token that opens `/metrics` on the public port instead
/// - `tokens.app_metadata_claim` (none): a namespaced claim (`https://example.com/app_metadata`)
///   that carries the user's `app_metadata` in id_tokens
/// - `audit.retention_days` (90): audit events older than this are swept
/// - `shutdown.delay` (0 s): on SIGTERM, `/health/ready` answers 503 and the server keeps
///   serving this long (behind a load balancer, its health-check interval and a little more)
///   before it stops accepting and drains; `shutdown.timeout` (25 s) bounds the whole stop
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 3000
    public var dataDirectory = "./sesame-data"
    public var databasePath: String?
    /// A PostgreSQL URL; when set, storage is PostgreSQL instead of SQLite.
    public var databaseURL: String?
    /// The PostgreSQL connection pool's size.
    public var databasePoolSize = 20
    /// Seconds one PostgreSQL operation may wait (connecting included) before a 503.
    public var databaseTimeout = 5
    /// Whether PostgreSQL statements run as named prepared statements (off behind a pooler
    /// that cannot keep them).
    public var databasePreparedStatements = true
    /// The master key that seals the database's secrets, as text (base64 or hex of 32 bytes).
    public var masterKey: String?
    /// A file holding the master key.
    public var masterKeyFile: String?
    public var settings: LoginSettings
    public var trustProxy = false
    /// `trusted_proxies`: the proxies whose forwarding headers are believed.
    public var trustedProxies: [IPRange] = []
    /// `proxy_header`: the one forwarding header those proxies set.
    public var proxyHeader = ProxyHeader.xForwardedFor
    /// `webhook_allowed_hosts`: the private hosts and ranges webhook calls may reach.
    public var webhookAddressPolicy = WebhookAddressPolicy()
    /// Seconds a connection may stay without a complete request.
    public var httpIdleTimeout = 30
    /// Seconds a request may take to arrive, from its first byte to its last.
    public var httpRequestTimeout = 30
    /// Open connections one client address may hold (trusted proxies exempt).
    public var httpMaxConnectionsPerIP = 64
    /// Threads for connection I/O and HTTP parsing; nil for half the cores.
    public var httpThreads: Int?
    /// Whether a channel without a provider may print codes to the log on a non-loopback host.
    public var allowConsoleDelivery = false
    public var connections: [ConnectionOverride] = []
    /// The country of phone numbers typed on the hosted page without a calling code.
    public var smsDefaultCountry: String?
    /// The language of each connection's messages when the request names none we have
    /// (`connections.NAME.language`).
    public var messageLanguages: [String: String] = [:]
    /// Where operators place templates and language files that replace the shipped ones.
    public var templatesDirectory: String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("templates").path
    }
    public var email = EmailDeliverySettings()
    public var sms = SMSDeliverySettings()
    public var logLevel = "info"
    /// `text` (swift-log's default lines) or `json` (one object per line).
    public var logFormat = "text"
    /// A second listener for `/metrics` only; nil: none.
    public var metricsPort: Int?
    /// Where that listener binds.
    public var metricsHost = "127.0.0.1"
    /// The bearer token that opens `/metrics` on the public port; nil: not served there.
    public var metricsToken: String?
    /// Seconds a stopping instance keeps serving, not ready, before it stops accepting.
    public var shutdownDelay = 0
    /// Seconds a graceful stop may take in all before what is left is cancelled.
    public var shutdownTimeout = 25
    /// True when no issuer was configured and it was derived from the port.
    public var issuerIsDefault = true

    /// Whose forwarding headers are believed: the listed proxies, loopback and private
    /// networks for a bare `trust_proxy`, or none.
    public var proxyPolicy: ProxyPolicy {
        if !trustedProxies.isEmpty { return ProxyPolicy(trusted: trustedProxies, header: proxyHeader) }
        return trustProxy ? ProxyPolicy.localNetworks.reading(proxyHeader) : .none
    }

    /// Whether codes may go to the console outbox (the log, and the outbox table in clear): only
    /// where nobody else can reach the server, or where the operator said so. A loopback
    /// listener behind a reverse proxy is reachable by everyone, so an https issuer or trusted
    /// proxies count as public too.
    public var consoleDeliveryAllowed: Bool {
        allowConsoleDelivery || consoleDeliveryRefusal == nil
    }

    /// Why the console outbox is not used without `allow_console_delivery`; nil where it is
    /// (a loopback listener that no proxy publishes: development).
    public var consoleDeliveryRefusal: String? {
        guard ["127.0.0.1", "::1", "localhost"].contains(host) || host.hasPrefix("127.") else {
            return "Sesame listens beyond loopback"
        }
        if settings.issuer.lowercased().hasPrefix("https://") { return "the issuer is https, so the server is public" }
        if trustProxy || !trustedProxies.isEmpty { return "a trusted proxy publishes this server" }
        return nil
    }

    /// A configuration with every default, for tests and embedding.
    public init(port: Int = 3000, dataDirectory: String = "./sesame-data", issuer: String? = nil) {
        self.port = port
        self.dataDirectory = dataDirectory
        self.settings = LoginSettings(issuer: issuer ?? "http://localhost:\(port)/")
        self.issuerIsDefault = issuer == nil
    }

    /// With port 0 the system picks the port; a derived issuer must then name the port
    /// actually used, so the port is chosen here, before anything is built from it.
    ///
    /// This bind and ``busyListener()``'s use the HTTP server's own event loops: NIO's shared
    /// group would start two threads of its own that an SQLite server never uses again.
    mutating func resolveEphemeralPort() async throws {
        guard port == 0 else { return }
        let channel = try await ServerBootstrap(group: HTTPThreads.group(httpThreads))
            .bind(host: host, port: 0).get()
        port = channel.localAddress?.port ?? 0
        try await channel.close()
        if issuerIsDefault { settings.issuer = "http://localhost:\(port)/" }
    }

    /// The first listener (`host:port`, then the metrics one) another process holds, or nil.
    /// Bound and closed at once, with the address reuse the server's own listener has, so a
    /// port left in TIME_WAIT by a previous run is not taken for a busy one; `serve` says so
    /// in one line before anything else starts.
    public func busyListener() async -> (host: String, port: Int)? {
        let listeners = [(host, port)] + (metricsPort.map { [(metricsHost, $0)] } ?? [])
        for (host, port) in listeners where port != 0 {
            do {
                let channel = try await ServerBootstrap(group: HTTPThreads.group(httpThreads))
                    .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                    .bind(host: host, port: port).get()
                try await channel.close()
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                return (host, port)
            } catch {
                continue  // not "in use": the server's own bind reports it
            }
        }
        return nil
    }

    /// The SQLite file: `database`, or `sesame.sqlite` in the data directory.
    public var sqlitePath: String {
        databasePath ?? URL(fileURLWithPath: dataDirectory).appendingPathComponent("sesame.sqlite").path
    }
}

/// Where email goes.
public struct EmailDeliverySettings: Sendable, Equatable {
    public var provider = "console"
    public var smtpHost: String?
    public var smtpPort = 587
    public var smtpUsername: String?
    public var smtpPassword: String?
    /// none | starttls | tls
    public var smtpSecurity = "starttls"
    public var from = "Sesame <no-reply@localhost>"
    /// `email.provider = http`: the gateway's URL and its token settings.
    public var gatewayURL: String?
    public var gatewaySecret: String?
    public var gatewaySubject: String?
    public var gatewayAudience: String?
}

/// Where texts go.
public struct SMSDeliverySettings: Sendable, Equatable {
    public var provider = "console"
    public var twilioAccountSID: String?
    public var twilioAuthToken: String?
    public var twilioFrom: String?
    public var twilioMessagingServiceSID: String?
    public var twilioBaseURL = "https://api.twilio.com"
    public var gatewayURL: String?
    public var gatewaySecret: String?
    public var gatewaySubject: String?
    public var gatewayAudience: String?
    public var gatewaySender: String?
}

/// The configuration has problems; all of them are listed.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var problems: [String]
    public var description: String {
        "invalid configuration:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }
}
