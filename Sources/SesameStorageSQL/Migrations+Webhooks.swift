extension Migrations {
    /// Webhook endpoints: where events go, which ones, and their sealed signing secrets.
    static let webhooks = Migration(
        id: "0010_webhooks",
        sqlite: webhookSteps(integer: "INTEGER", bytes: "BLOB"),
        postgres: webhookSteps(integer: "BIGINT", bytes: "BYTEA"))

    private static func webhookSteps(integer int: String, bytes: String) -> [String] {
        [
            """
            CREATE TABLE webhooks (id TEXT PRIMARY KEY, url TEXT NOT NULL, events TEXT NOT NULL,
              sealed_secret \(bytes) NOT NULL, created_at \(int) NOT NULL)
            """
        ]
    }
}
