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
