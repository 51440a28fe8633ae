extension Migrations {
    /// The data key that seals the database's secrets, wrapped under the operator's master key
    /// (``SecretSeal``); one row. A new table only, so an older binary keeps working on a
    /// database this migrated, as long as nothing is sealed yet.
    static let sealing = Migration(
        id: "0019_sealing",
        sqlite: [
            """
            CREATE TABLE sealing_keys (id TEXT PRIMARY KEY, wrapped_key BLOB NOT NULL, master_key_id TEXT NOT NULL,
              created_at INTEGER NOT NULL)
            """
        ],
        postgres: [
            """
            CREATE TABLE sealing_keys (id TEXT PRIMARY KEY, wrapped_key BYTEA NOT NULL, master_key_id TEXT NOT NULL,
              created_at BIGINT NOT NULL)
            """
        ])
}

extension Migrations {
    /// When a rotated HMAC key starts hashing (``HMACKeyRotation``); NULL for keys from before,
    /// which hash from their creation. An added column only, so an older binary keeps working.
    static let hmacRotation = Migration(
        id: "0020_hmac_rotation",
        sqlite: ["ALTER TABLE hmac_secrets ADD COLUMN active_from INTEGER"],
        postgres: ["ALTER TABLE hmac_secrets ADD COLUMN active_from BIGINT"])
}
