extension Migrations {
    /// Auth0's bulk jobs: a users import or export with its file, the worker's lease, the
    /// progress a resumed import starts from, and the users it refused (one JSON object a
    /// line, appended a step at a time); and the provider of a `user_id` kept from another
    /// Auth0 connection (`auth0|…`). A new table and a column only, so an older binary keeps
    /// working.
    static let jobs = Migration(
        id: "0023_jobs",
        sqlite: jobSteps(integer: "INTEGER", bytes: "BLOB"),
        postgres: jobSteps(integer: "BIGINT", bytes: "BYTEA"))

    private static func jobSteps(integer int: String, bytes: String) -> [String] {
        [
            "ALTER TABLE users ADD COLUMN provider TEXT",
            """
            CREATE TABLE jobs (id TEXT PRIMARY KEY, type TEXT NOT NULL, status TEXT NOT NULL, connection TEXT NOT NULL,
              connection_id TEXT NOT NULL, external_id TEXT, upsert \(int) NOT NULL, format TEXT, fields TEXT,
              input \(bytes) NOT NULL, output \(bytes), processed \(int) NOT NULL, inserted \(int) NOT NULL,
              updated \(int) NOT NULL, failed \(int) NOT NULL, total \(int) NOT NULL, errors TEXT NOT NULL,
              status_details TEXT, lease_owner TEXT, lease_until \(int), created_at \(int) NOT NULL,
              updated_at \(int) NOT NULL)
            """,
            "CREATE INDEX jobs_status ON jobs (status, created_at)",
        ]
    }
}
