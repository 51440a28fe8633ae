extension Migrations {
    /// Repeated refusals share a row: `count` says how many events a row stands for (1 for every
    /// row before), and `aggregate_key` names the kind, source and minute of a refusal, unique,
    /// so the first refusal of a minute inserts the row and the others add to its count in the
    /// same statement. Rows without a key (every other event) are never merged: unique indexes
    /// let NULLs repeat on both backends. Added columns only, so an older binary keeps working.
    static let auditAggregation = Migration(
        id: "0018_audit_aggregation",
        sqlite: auditAggregationSteps(integer: "INTEGER"),
        postgres: auditAggregationSteps(integer: "BIGINT"))

    private static func auditAggregationSteps(integer int: String) -> [String] {
        [
            "ALTER TABLE audit_events ADD COLUMN count \(int) NOT NULL DEFAULT 1",
            "ALTER TABLE audit_events ADD COLUMN aggregate_key TEXT",
            "CREATE UNIQUE INDEX audit_events_aggregate ON audit_events (aggregate_key)",
        ]
    }
}
