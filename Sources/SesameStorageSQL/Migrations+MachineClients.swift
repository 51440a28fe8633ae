extension Migrations {
    /// Moving from Auth0: users' `given_name` and `family_name`, and client grants (which
    /// Management API scopes a machine-to-machine application's `client_credentials` tokens
    /// carry for an audience; one grant per application and audience). Added columns and a new
    /// table only, so an older binary keeps working.
    static let machineClients = Migration(
        id: "0022_machine_clients",
        sqlite: machineClientSteps(integer: "INTEGER"),
        postgres: machineClientSteps(integer: "BIGINT"))

    private static func machineClientSteps(integer int: String) -> [String] {
        [
            "ALTER TABLE users ADD COLUMN given_name TEXT",
            "ALTER TABLE users ADD COLUMN family_name TEXT",
            """
            CREATE TABLE client_grants (id TEXT PRIMARY KEY, client_id TEXT NOT NULL, audience TEXT NOT NULL,
              scope TEXT NOT NULL, created_at \(int) NOT NULL, UNIQUE (client_id, audience))
            """,
        ]
    }
}
