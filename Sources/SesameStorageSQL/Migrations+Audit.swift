extension Migrations {
    /// Indexes for reading the audit trail by user, by type and by time (`sesame admin audit
    /// list`, `/api/v2/logs`) and for sweeping it, so neither scans the whole table.
    static let auditIndexes = Migration(id: "0012_audit_indexes", sqlite: auditIndexSteps, postgres: auditIndexSteps)

    private static let auditIndexSteps = [
        "CREATE INDEX audit_events_user ON audit_events (user_id, seq)",
        "CREATE INDEX audit_events_type ON audit_events (type, seq)",
        "CREATE INDEX audit_events_at ON audit_events (at)",
    ]
}
