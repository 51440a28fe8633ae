extension Migrations {
    /// The durable outbox: messages and webhook calls, claimed by workers under leases.
    static let deliveries = Migration(
        id: "0009_deliveries",
        sqlite: deliverySteps(integer: "INTEGER", bytes: "BLOB"),
        postgres: deliverySteps(integer: "BIGINT", bytes: "BYTEA"))

    private static func deliverySteps(integer int: String, bytes: String) -> [String] {
        [
            """
            CREATE TABLE deliveries (id TEXT PRIMARY KEY, channel TEXT NOT NULL, recipient TEXT NOT NULL,
              payload \(bytes) NOT NULL, status TEXT NOT NULL, attempts \(int) NOT NULL, next_attempt_at \(int) NOT NULL,
              deadline \(int) NOT NULL, lease_owner TEXT, lease_until \(int), last_error TEXT,
              created_at \(int) NOT NULL, updated_at \(int) NOT NULL, sent_at \(int))
            """,
            // Claims read only pending rows in due order; the partial index stays as small as the queue.
            "CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending'",
            "CREATE INDEX deliveries_recipient ON deliveries (recipient, created_at)",
            "CREATE INDEX deliveries_status ON deliveries (status, created_at)",
            "CREATE INDEX deliveries_created ON deliveries (created_at)",
        ]
    }
}
