extension Migrations {
    /// The management API: users' `user_metadata` and `app_metadata` (JSON objects), and the
    /// scopes of management tokens (space-separated; empty for tokens made before scopes,
    /// which keep every scope).
    static let management = Migration(id: "0013_management", sqlite: managementSteps, postgres: managementSteps)

    private static let managementSteps = [
        "ALTER TABLE users ADD COLUMN user_metadata TEXT NOT NULL DEFAULT '{}'",
        "ALTER TABLE users ADD COLUMN app_metadata TEXT NOT NULL DEFAULT '{}'",
        "ALTER TABLE admin_tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT ''",
        "CREATE INDEX users_email ON users (email)",
        "CREATE INDEX users_phone_number ON users (phone_number)",
    ]
}
