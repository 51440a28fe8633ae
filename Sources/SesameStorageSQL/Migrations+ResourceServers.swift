extension Migrations {
    /// APIs (resource servers), roles, and the permissions given to roles and users. New tables
    /// only, so an older binary keeps working. An API's settings beyond its identifier and name
    /// are one JSON column, as an application's are.
    static let resourceServers = Migration(
        id: "0024_resource_servers",
        sqlite: resourceServerSteps(integer: "INTEGER"),
        postgres: resourceServerSteps(integer: "BIGINT"))

    private static func resourceServerSteps(integer int: String) -> [String] {
        [
            """
            CREATE TABLE resource_servers (id TEXT PRIMARY KEY, identifier TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
              options TEXT NOT NULL, created_at \(int) NOT NULL)
            """,
            """
            CREATE TABLE roles (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, description TEXT,
              created_at \(int) NOT NULL)
            """,
            """
            CREATE TABLE role_permissions (role_id TEXT NOT NULL, resource_server_identifier TEXT NOT NULL,
              permission_name TEXT NOT NULL, PRIMARY KEY (role_id, resource_server_identifier, permission_name))
            """,
            """
            CREATE TABLE user_permissions (user_id TEXT NOT NULL, resource_server_identifier TEXT NOT NULL,
              permission_name TEXT NOT NULL, PRIMARY KEY (user_id, resource_server_identifier, permission_name))
            """,
            """
            CREATE TABLE user_roles (seq \(int) NOT NULL, user_id TEXT NOT NULL, role_id TEXT NOT NULL,
              PRIMARY KEY (user_id, role_id))
            """,
            "CREATE INDEX user_roles_role ON user_roles (role_id, seq)",
            "CREATE INDEX role_permissions_api ON role_permissions (resource_server_identifier)",
            "CREATE INDEX user_permissions_api ON user_permissions (resource_server_identifier)",
        ]
    }
}
