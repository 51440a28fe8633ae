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

    /// How many events `query` selects in all (Auth0's `total`).
    public func count(_ query: AuditQuery) async throws -> Int {
        try await storage.countAuditEvents(query)
    }

    /// The event numbered `seq` (`GET /api/v2/logs/{id}`).
    /// - Throws: 404 when there is none (or it aged out of the retention period).
    public func event(_ seq: Int64) async throws -> AuditEvent {
        guard let event = try await storage.auditEvents(AuditQuery(seq: seq, limit: 1)).first else {
            throw SesameError(.notFound, .notFound, "No log event \(seq).")
        }
        return event
    }

    /// One user's events, newest first (`GET /api/v2/users/{id}/logs`).
    public func list(userID: String, limit: Int, offset: Int) async throws -> [AuditEvent] {
        try await storage.auditEvents(AuditQuery(userID: userID, limit: limit, offset: offset))
    }
}
