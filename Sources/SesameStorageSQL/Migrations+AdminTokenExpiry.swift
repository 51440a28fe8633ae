extension Migrations {
    /// Management tokens that stop working by themselves (`sesame admin tokens create
    /// --expires-in`); NULL, as for every token made before, never expires. Adding a nullable
    /// column is all it does, so a server of the version before keeps working on this schema.
    static let adminTokenExpiry = Migration(
        id: "0021_admin_token_expiry", sqlite: ["ALTER TABLE admin_tokens ADD COLUMN expires_at BIGINT"],
        postgres: ["ALTER TABLE admin_tokens ADD COLUMN expires_at BIGINT"])
}
