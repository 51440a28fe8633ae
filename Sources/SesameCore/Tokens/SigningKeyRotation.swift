public import Foundation

/// Rotation of the signing keys all instances share.
///
/// A rotation publishes a new key at once and lets it sign only after `activateAfter`, so
/// every instance (which reloads keys every `signing_keys.refresh_interval`) and every
/// relying party (which caches the JWKS) knows the key before a token signed by it arrives.
/// The key it replaces keeps verifying until it is retired.
public struct SigningKeyRotation: Sendable {
    /// Where a key stands at one instant.
    public enum State: String, Sendable, Codable {
        /// Published, not signing yet.
        case next
        /// Signs new tokens.
        case current
        /// Replaced; still published so the tokens it signed verify.
        case previous
        /// Withdrawn: not published, its tokens no longer verify.
        case retired
    }

    /// A key and its state.
    public struct Status: Sendable {
        public var record: SigningKeyRecord
        public var state: State
    }

    let storage: any KeyRepository & EventRepository
    let clock: any SesameClock

    /// Creates the rotation service.
    public init(storage: any KeyRepository & EventRepository, clock: any SesameClock) {
        self.storage = storage
        self.clock = clock
    }

    /// Every key with its state, the latest to become active first.
    public func list() async throws -> [Status] {
        let now = clock.now()
        let records = try await storage.signingKeys()
        let current = TokenSigner.current(in: records, at: now)?.kid
        return records.map { record in
            let state: State =
                if TokenSigner.isRetired(record, at: now) { .retired } else if record.kid == current {
                    .current
                } else if record.activeFrom > now { .next } else { .previous }
            return Status(record: record, state: state)
        }
    }

    /// Creates a key that is published now and signs from `now + activateAfter` seconds.
    public func rotate(activateAfter: TimeInterval) async throws -> Status {
        guard activateAfter >= 0 else { throw SesameError.invalidRequest("activate-after must not be negative") }
        let now = clock.now()
        // Strictly after every existing key, so the newest rotation always wins, even when two
        // happen within one clock tick.
        let latest = try await storage.signingKeys().map(\.activeFrom).max() ?? .distantPast
        let activeFrom = max(now.addingTimeInterval(activateAfter), latest.addingTimeInterval(0.001))
        let record = try TokenSigner.generateKey(at: now, activeFrom: activeFrom)
        try await storage.addSigningKey(record)
        try? await storage.recordAudit(
            AuditEvent(
                type: AuditEventType.signingKeyRotated.rawValue, detail: "\(record.kid) signs from \(ISO8601.string(activeFrom))",
                at: now))
        return Status(record: record, state: activeFrom <= now ? .current : .next)
    }

    /// Withdraws a key. The key that signs now cannot be retired (rotate first), so the
    /// server always has a key to sign with.
    /// - Throws: `not_found` for an unknown or already retired key, `invalid_request` for the current key.
    public func retire(kid: String) async throws {
        let statuses = try await list()
        guard let status = statuses.first(where: { $0.record.kid == kid }), status.state != .retired else {
            throw SesameError(.notFound, .notFound, "No signing key \(kid) that is not retired.")
        }
        guard status.state != .current else {
            throw SesameError.invalidRequest("Key \(kid) signs tokens now; rotate to a new key first.")
        }
        guard try await storage.retireSigningKey(kid: kid, at: clock.now()) else {
            throw SesameError(.notFound, .notFound, "No signing key \(kid) that is not retired.")
        }
        try? await storage.recordAudit(
            AuditEvent(type: AuditEventType.signingKeyRetired.rawValue, detail: kid, at: clock.now()))
    }
}
