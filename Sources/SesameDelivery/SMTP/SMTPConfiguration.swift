public import NIOSSL

/// Where and how ``SMTPSender`` hands email to a mail server.
///
/// ```swift
/// var smtp = SMTPConfiguration(host: "smtp.example.com", port: 587, fromAddress: "login@example.com")
/// smtp.fromName = "Example Sign-in"
/// smtp.security = .startTLS
/// smtp.username = "apikey"
/// smtp.password = secret
/// ```
public struct SMTPConfiguration: Sendable {
    /// How the connection to the server is protected.
    public enum Security: String, Sendable, Equatable, CaseIterable {
        /// Plain text for the whole session: only for a relay on the same host or a trusted network.
        case none
        /// Connects in plain text, then upgrades with `STARTTLS` (usually port 587).
        /// The session fails if the server does not offer it: never a silent downgrade.
        case startTLS
        /// TLS from the first byte ("SMTPS", usually port 465).
        case tls
    }

    /// The server's host name or IP address.
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// The envelope sender and `From:` address.
    public var fromAddress: String
    /// The display name shown with the `From:` address, if any.
    public var fromName: String?
    /// The user name for `AUTH`; authentication happens only when both it and ``password`` are set.
    public var username: String?
    /// The password for `AUTH`.
    public var password: String?
    /// How the connection is protected.
    public var security: Security
    /// TLS settings for ``Security/startTLS`` and ``Security/tls``: trust roots, client
    /// certificate, verification. The default verifies the server against the system roots.
    public var tlsConfiguration: TLSConfiguration
    /// The longest the whole exchange (connect, TLS, dialogue) may take before it is abandoned.
    public var timeout: Duration
    /// The name this client gives in `EHLO`/`HELO`.
    public var heloName: String

    /// Creates a configuration; everything but the server and the sender has a default.
    public init(
        host: String,
        port: Int = 587,
        fromAddress: String,
        fromName: String? = nil,
        username: String? = nil,
        password: String? = nil,
        security: Security = .startTLS,
        tlsConfiguration: TLSConfiguration = .makeClientConfiguration(),
        timeout: Duration = .seconds(30),
        heloName: String = "localhost"
    ) {
        self.host = host
        self.port = port
        self.fromAddress = fromAddress
        self.fromName = fromName
        self.username = username
        self.password = password
        self.security = security
        self.tlsConfiguration = tlsConfiguration
        self.timeout = timeout
        self.heloName = heloName
    }

    /// Trusts only the certificates in a PEM file (a private CA or a self-signed server),
    /// keeping full verification; saves callers from importing NIOSSL for the common case.
    public mutating func trustCertificates(fromPEMFile path: String) throws {
        tlsConfiguration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
    }

    /// The credentials to authenticate with, when both halves are configured.
    var credentials: (username: String, password: String)? {
        guard let username, let password else { return nil }
        return (username, password)
    }

    /// `host:port` as shown in error messages.
    var endpointDescription: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
