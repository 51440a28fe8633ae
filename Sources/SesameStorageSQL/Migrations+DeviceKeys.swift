import SesameCore

extension Migrations {
    /// Device credentials, the single-use gates of device-key login (used assertion ids and
    /// server nonces), and management tokens. The default application gets the JWT-bearer
    /// grant, as new applications do.
    static let deviceKeys = Migration(
        id: "0002_device_keys",
        sqlite: deviceKeyTables(integer: "INTEGER", bytes: "BLOB") + [
            """
            UPDATE applications SET options = json_set(options, '$.grantTypes[#]', '\(GrantType.jwtBearer)')
            WHERE is_default = 1 AND NOT EXISTS (SELECT 1 FROM json_each(applications.options, '$.grantTypes')
              WHERE value = '\(GrantType.jwtBearer)')
            """
        ],
        postgres: deviceKeyTables(integer: "BIGINT", bytes: "BYTEA") + [
            """
            UPDATE applications SET options = jsonb_set(options::jsonb, '{grantTypes}',
              (options::jsonb -> 'grantTypes') || to_jsonb('\(GrantType.jwtBearer)'::text))::text
            WHERE is_default = 1 AND NOT ((options::jsonb -> 'grantTypes') @> to_jsonb(ARRAY['\(GrantType.jwtBearer)']))
            """
        ])

    private static func deviceKeyTables(integer int: String, bytes: String) -> [String] {
        [
            """
            CREATE TABLE device_credentials (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, client_id TEXT NOT NULL,
              device_id TEXT NOT NULL, device_name TEXT NOT NULL, algorithm TEXT NOT NULL, public_key \(bytes) NOT NULL,
              fingerprint TEXT NOT NULL, key_bits \(int) NOT NULL, created_at \(int) NOT NULL,
              UNIQUE (user_id, client_id, device_id))
            """,
            "CREATE TABLE device_assertions (hash \(bytes) PRIMARY KEY, expires_at \(int) NOT NULL)",
            "CREATE INDEX device_assertions_expiry ON device_assertions (expires_at)",
            """
            CREATE TABLE device_nonces (hash \(bytes) PRIMARY KEY, client_id TEXT NOT NULL, created_at \(int) NOT NULL,
              expires_at \(int) NOT NULL, consumed_at \(int))
            """,
            "CREATE INDEX device_nonces_expiry ON device_nonces (expires_at)",
            """
            CREATE TABLE admin_tokens (id TEXT PRIMARY KEY, name TEXT NOT NULL, token_hash \(bytes) NOT NULL UNIQUE,
              created_at \(int) NOT NULL)
            """,
        ]
    }
}
