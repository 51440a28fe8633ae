extension Migrations {
    /// The settings every instance shares (issuer, delivery, limits), so an instance needs
    /// nothing but the database URL.
    static let settings = Migration(
        id: "0005_settings",
        sqlite: ["CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at INTEGER NOT NULL)"],
        postgres: ["CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at BIGINT NOT NULL)"])
}
