import Foundation
import Logging

/// Appends audit events: who signed in, what was refused, what an operator changed; and
/// queues the webhook calls they stand for (``WebhookEventType``).
struct AuditLog: Sendable {
    let storage: any SesameStorage
    let clock: any SesameClock
    let logger: Logger
    var random: any RandomSource = SystemRandomSource()

    /// The longest audit field stored: details quote request input (a JWT's `kid`, say), and
    /// an unauthenticated caller must not be able to write large rows.
    static let maxField = 512

    /// Appends an event; a failure to audit is logged, never fatal to the request.
    func record(_ type: AuditEventType, user: String? = nil, client: String? = nil, ip: String? = nil, detail: String) async {
        let event = event(type, user: user, client: client, ip: ip, detail: detail, at: clock.now())
        do {
            try await storage.recordAudit(event)
        } catch {
            logger.error("audit write failed", metadata: ["type": "\(type.rawValue)", "error": "\(error)"])
        }
        await published(event)
    }

    /// The event as it is stored: every field bounded.
    func event(
        _ type: AuditEventType, user: String? = nil, client: String? = nil, ip: String? = nil, detail: String, at: Date
    ) -> AuditEvent {
        func bounded(_ text: String?) -> String? { text.map { String($0.prefix(Self.maxField)) } }
        return AuditEvent(
            type: type.rawValue, userID: bounded(user), clientID: bounded(client), ip: bounded(ip),
            detail: bounded(detail) ?? "", at: at)
    }

    /// What follows an event written (by ``record(_:user:client:ip:detail:)``, or by a storage
    /// operation that wrote it with its own rows): its metrics and its webhook calls.
    func published(_ event: AuditEvent) async {
        if let type = AuditEventType(rawValue: event.type) { SesameMetrics.login(for: type, detail: event.detail) }
        do {
            try await WebhookEvents(storage: storage, clock: clock, random: random).emit(event)
        } catch {
            logger.error("webhook event not queued", metadata: ["type": "\(event.type)", "error": "\(error)"])
        }
    }
}
