extension Migrations {
    /// DPoP (RFC 9449): the proofs already used (by a hash of key and `jti`, until they would
    /// be stale anyway), the key a public client's refresh token is bound to, and the key an
    /// authorization code was asked for with (`dpop_jkt`). A new table and nullable columns
    /// only, so a server of the version before keeps working on it.
    static let dpop = Migration(
        id: "0026_dpop", sqlite: dpopStatements(integer: "INTEGER", bytes: "BLOB"),
        postgres: dpopStatements(integer: "BIGINT", bytes: "BYTEA"))

    private static func dpopStatements(integer int: String, bytes: String) -> [String] {
        [
            "CREATE TABLE dpop_proofs (hash \(bytes) PRIMARY KEY, expires_at \(int) NOT NULL)",
            "CREATE INDEX dpop_proofs_expiry ON dpop_proofs (expires_at)",
            "ALTER TABLE refresh_tokens ADD COLUMN dpop_jkt TEXT",
            "ALTER TABLE authorization_codes ADD COLUMN dpop_jkt TEXT",
        ]
    }
}
