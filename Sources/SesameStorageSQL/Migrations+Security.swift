extension Migrations {
    /// Security hardening: a user's tokens issued before the address was first verified stop
    /// working (`tokens_valid_after`); a refresh-token family keeps its original
    /// authentication time (`auth_time`, OIDC Core §2) and allows one retry of a rotation
    /// within the reuse interval (`retried_at`).
    static let security = Migration(
        id: "0006_security",
        sqlite: securitySteps(integer: "INTEGER"),
        postgres: securitySteps(integer: "BIGINT"))

    private static func securitySteps(integer int: String) -> [String] {
        [
            "ALTER TABLE users ADD COLUMN tokens_valid_after \(int)",
            "ALTER TABLE refresh_tokens ADD COLUMN auth_time \(int)",
            "ALTER TABLE refresh_tokens ADD COLUMN retried_at \(int)",
            "UPDATE refresh_tokens SET auth_time = created_at",
            "CREATE INDEX refresh_tokens_expiry ON refresh_tokens (expires_at)",
            "CREATE INDEX authorization_codes_expiry ON authorization_codes (expires_at)",
            "CREATE INDEX rate_limits_window ON rate_limits (window_start)",
            "CREATE INDEX outbox_created ON outbox (created_at)",
        ]
    }
}
