import Crypto
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

    /// How long repeated refusals share a row: the first of a minute writes it, the rest add
    /// to its count.
    static let aggregateWindow: Int64 = 60

    /// Appends a refusal an unauthenticated caller can repeat at will. The first refusal of its
    /// kind (`type`, client, address and `reason`, a class without the request's own input)
    /// in a minute writes a row and is published (metrics and webhook calls); later ones add
    /// to that row's count and only to the metrics, so a flood writes one row a minute and
    /// sends no more webhook calls. A failure to audit is logged, never fatal to the request.
    func recordRefusal(
        _ type: AuditEventType, user: String? = nil, client: String?, ip: String?, reason: String, detail: String
    ) async {
        let now = clock.now()
        let event = event(type, user: user, client: client, ip: ip, detail: detail, at: now)
        let window = (now.epochSeconds / Self.aggregateWindow) * Self.aggregateWindow
        // Hashed: the parts quote request input, and the key is indexed.
        let parts = [type.rawValue, client ?? "", ip.map(RateLimiter.clientKey) ?? "", reason, String(window)]
        let key = Hex.encode(Array(SHA256.hash(data: Data(parts.joined(separator: "\u{1F}").utf8))))
        do {
            if try await storage.recordAggregatedAudit(event, aggregateKey: key) {
                await published(event)
            } else {
                SesameMetrics.login(for: type, detail: event.detail)
            }
        } catch {
            logger.error("audit write failed", metadata: ["type": "\(type.rawValue)", "error": "\(error)"])
        }
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
