/// Who signed in where, and what operators changed: the audit log as operators read it
/// (`sesame admin audit list`, `GET /api/v2/logs`).
public struct AuditTrail: Sendable {
    let storage: any EventRepository

    /// Creates the reader over `storage`.
    public init(storage: any EventRepository) {
        self.storage = storage
    }

    /// The events `query` selects, newest first.
    public func list(_ query: AuditQuery) async throws -> [AuditEvent] {
        try await storage.auditEvents(query)
    }

    /// One user's events, newest first (`GET /api/v2/users/{id}/logs`).
    public func list(userID: String, limit: Int, offset: Int) async throws -> [AuditEvent] {
        try await storage.auditEvents(AuditQuery(userID: userID, limit: limit, offset: offset))
    }
}
