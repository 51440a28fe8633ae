import Foundation
import SesameCore
import SesameServer
import SesameStorageSQL

/// What `serve` prints on start: enough to make the first login with curl.
struct Banner: Sendable {
    let host, issuer, database, clientID: String
    /// How email and text messages leave: the provider, or the console outbox.
    let email, sms: String

    /// The banner of `runtime`, with the default application read now.
    init(_ runtime: SesameRuntime) async throws {
        let configuration = runtime.configuration
        let app = try await runtime.storage.listApplications().first(where: \.isDefault)
        email = Self.provider(configuration.email.provider, configuration, console: "console outbox (this log; `sesame outbox`)")
        sms = Self.provider(configuration.sms.provider, configuration, console: "console outbox")
        (host, issuer, database) = (configuration.host, configuration.settings.issuer, Self.database(configuration))
        clientID = app?.clientID ?? "-"
    }

    /// The banner for the port the server bound. (A `{port}` replaced through Foundation's
    /// `replacingOccurrences` cost 2 % of the start in the run-time type lookups of its first call.)
    func text(port: Int) -> String {
        """
        Sesame is listening on \(host):\(port)
          issuer:          \(issuer)
          database:        \(database)
          default app:     client_id \(clientID) (native, public: no secret needed)
          email codes:     \(email)
          sms codes:       \(sms)
        """
    }

    /// The same as fields of one JSON log line (`log_format = json`).
    func fields(port: Int) -> [String: String] {
        [
            "message": "Sesame is listening on \(host):\(port)", "issuer": issuer, "database": database,
            "client_id": clientID, "email_codes": email, "sms_codes": sms, "version": BuildInfo.version,
        ]
    }

    /// Where data lives, without the password of a PostgreSQL URL.
    static func database(_ configuration: ServerConfiguration) -> String {
        guard let url = configuration.databaseURL, var components = URLComponents(string: url) else {
            return "\(configuration.sqlitePath) (SQLite)"
        }
        if components.password != nil { components.password = "****" }
        return "\(components.string ?? "postgres") (PostgreSQL)"
    }

    /// A channel's provider, or what happens to its codes without one.
    static func provider(_ name: String, _ configuration: ServerConfiguration, console: String) -> String {
        guard name == "console" else { return name }
        guard let refusal = configuration.consoleDeliveryRefusal else { return console }
        return configuration.allowConsoleDelivery
            ? console + ", CODES ARE LOGGED although \(refusal): allowed by allow_console_delivery"
            : "none: refused (no provider, and codes are not logged because \(refusal); "
                + "configure a provider, or set allow_console_delivery)"
    }
}
