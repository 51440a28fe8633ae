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
        func bounded(_ text: String?) -> String? { text.map { String($0.prefix(Self.maxField)) } }
        let event = AuditEvent(
            type: type.rawValue, userID: bounded(user), clientID: bounded(client), ip: bounded(ip),
            detail: bounded(detail) ?? "", at: clock.now())
        SesameMetrics.login(for: type, detail: detail)
        do {
            try await storage.recordAudit(event)
        } catch {
            logger.error("audit write failed", metadata: ["type": "\(type.rawValue)", "error": "\(error)"])
        }
        do {
            try await WebhookEvents(storage: storage, clock: clock, random: random).emit(event)
        } catch {
            logger.error("webhook event not queued", metadata: ["type": "\(type.rawValue)", "error": "\(error)"])
        }
    }
}
