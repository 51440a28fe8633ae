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

    /// An import's file in pieces of at most ``SQLStorage/inputPiece`` bytes, written and read a
    /// piece at a time, so that neither the server nor the database driver holds a second whole
    /// copy of a 100 MB upload (`jobs.input` stays empty for them). A new table only.
    static let jobInputPieces = Migration(
        id: "0027_job_input_pieces",
        sqlite: [
            "CREATE TABLE job_inputs (job_id TEXT NOT NULL, piece INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (job_id, piece))"
        ],
        postgres: [
            "CREATE TABLE job_inputs (job_id TEXT NOT NULL, piece BIGINT NOT NULL, bytes BYTEA NOT NULL, PRIMARY KEY (job_id, piece))"
        ])
}
