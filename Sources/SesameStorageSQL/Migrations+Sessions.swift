extension Migrations {
    /// Browser sessions of the hosted login page (single sign-on, silent authentication,
    /// logout), and the authentication time an authorization code carries from its session
    /// (`auth_time`, checked against `max_age`).
    static let sessions = Migration(
        id: "0007_browser_sessions",
        sqlite: sessionSteps(integer: "INTEGER", bytes: "BLOB"),
        postgres: sessionSteps(integer: "BIGINT", bytes: "BYTEA"))

    private static func sessionSteps(integer int: String, bytes: String) -> [String] {
        [
            """
            CREATE TABLE browser_sessions (id TEXT PRIMARY KEY, secret_hash \(bytes) NOT NULL UNIQUE,
              user_id TEXT NOT NULL, methods TEXT NOT NULL, created_at \(int) NOT NULL, auth_time \(int) NOT NULL,
              last_seen_at \(int) NOT NULL, expires_at \(int) NOT NULL, ip TEXT, user_agent TEXT, revoked_at \(int))
            """,
            "CREATE INDEX browser_sessions_user ON browser_sessions (user_id, created_at)",
            "CREATE INDEX browser_sessions_expiry ON browser_sessions (expires_at)",
            "ALTER TABLE authorization_codes ADD COLUMN auth_time \(int)",
        ]
    }
}
