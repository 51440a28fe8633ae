extension Migrations {
    /// Which applications were answered from each browser session, with the `sid` each was
    /// given, so ending the session can log every one of them out (OpenID Connect Back- and
    /// Front-Channel Logout); and the session an authorization code came from (`sid`).
    static let backchannelLogout = Migration(
        id: "0025_backchannel_logout",
        sqlite: backchannelLogoutSteps(integer: "INTEGER"),
        postgres: backchannelLogoutSteps(integer: "BIGINT"))

    private static func backchannelLogoutSteps(integer int: String) -> [String] {
        [
            """
            CREATE TABLE session_applications (session_id TEXT NOT NULL, client_id TEXT NOT NULL, sid TEXT NOT NULL,
              created_at \(int) NOT NULL, expires_at \(int) NOT NULL, PRIMARY KEY (session_id, client_id, sid))
            """,
            "CREATE INDEX session_applications_expiry ON session_applications (expires_at)",
            "ALTER TABLE authorization_codes ADD COLUMN session_id TEXT",
        ]
    }
}
