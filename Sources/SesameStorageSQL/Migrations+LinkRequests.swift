extension Migrations {
    /// Magic links that work across devices: the asker polls with a secret (stored as an
    /// HMAC), the person confirms with a match code on any device.
    static let linkRequests = Migration(
        id: "0008_link_requests",
        sqlite: linkRequestSteps(integer: "INTEGER", bytes: "BLOB"),
        postgres: linkRequestSteps(integer: "BIGINT", bytes: "BYTEA"))

    /// Where each link request came from, shown on the page the link opens.
    static let linkRequestOrigin = Migration(
        id: "0016_link_request_origin", sqlite: ["ALTER TABLE link_requests ADD COLUMN ip TEXT"],
        postgres: ["ALTER TABLE link_requests ADD COLUMN ip TEXT"])

    private static func linkRequestSteps(integer int: String, bytes: String) -> [String] {
        [
            """
            CREATE TABLE link_requests (id TEXT PRIMARY KEY, poll_secret_hash \(bytes) NOT NULL UNIQUE,
              challenge_id TEXT NOT NULL, client_id TEXT NOT NULL, connection TEXT NOT NULL, recipient TEXT NOT NULL,
              match_code TEXT NOT NULL, status TEXT NOT NULL, user_id TEXT, created_at \(int) NOT NULL,
              expires_at \(int) NOT NULL, decided_at \(int))
            """,
            "CREATE INDEX link_requests_expiry ON link_requests (expires_at)",
        ]
    }
}
