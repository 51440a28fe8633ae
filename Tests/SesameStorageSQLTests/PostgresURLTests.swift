import Testing

@testable import SesameStorageSQL

/// Attack (downgrade): with `sslmode` left out, a database across the network was reached in
/// plaintext whenever the server (or someone in the path) did not offer TLS.
@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    @Test(
        "without sslmode, a remote database requires TLS and a local one prefers it",
        arguments: [
            ("db.internal", "require"), ("10.0.0.5", "require"), ("localhost", "prefer"), ("127.0.0.1", "prefer"),
            ("::1", "prefer"), ("/var/run/postgresql", "prefer"),
        ])
    func defaultSSLMode(host: String, expected: String) {
        #expect(PostgresURL.defaultSSLMode(host: host) == expected)
    }
}

/// Attack (downgrade by typo): `sslmode=requre` used to be read as `prefer`, so a server (or
/// someone in the path) that did not offer TLS got the connection, and every secret, in clear.
@Suite("PostgreSQL URL sslmode")
struct PostgresSSLModeTests {
    @Test("a misspelt sslmode is refused, naming the accepted values, instead of falling back to prefer")
    func sslmodeTypoDowngradesToPlaintext() {
        #expect {
            _ = try PostgresURL.configuration("postgres://sesame:secret@db.internal:5432/sesame?sslmode=requre")
        } throws: { error in
            let message = "\(error)"
            return message.contains("requre") && message.contains("verify-full") && message.contains("require")
        }
    }

    @Test("every libpq sslmode is accepted", arguments: PostgresURL.sslModes)
    func knownModesAreAccepted(mode: String) throws {
        _ = try PostgresURL.configuration("postgres://sesame:secret@db.internal:5432/sesame?sslmode=\(mode)")
    }
}
