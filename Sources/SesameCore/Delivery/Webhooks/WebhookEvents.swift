import Foundation

/// Turns audited events into webhook calls in the outbox, one per endpoint that asked for
/// the event's type. The worker of any instance sends them.
struct WebhookEvents: Sendable {
    let storage: any SesameStorage
    let clock: any SesameClock
    let random: any RandomSource

    /// How long a webhook call is retried before it is given up: a day, so a receiver that
    /// is down overnight still gets every event.
    static let retryWindow: TimeInterval = 24 * 3600

    /// Queues `event` for every endpoint subscribed to its webhook type.
    func emit(_ event: AuditEvent) async throws {
        guard let type = WebhookEventType(audit: event.type) else { return }
        let endpoints = try await storage.webhooks().filter { $0.events.contains(type.rawValue) }
        guard !endpoints.isEmpty else { return }
        let body = try await Self.body(type, data: data(of: event), at: event.at)
        try await enqueue(body, to: endpoints)
    }

    /// Queues `body` for `endpoints`; returns the deliveries.
    @discardableResult
    func enqueue(_ body: String, to endpoints: [WebhookEndpoint]) async throws -> [QueuedDelivery] {
        let seal = PayloadSeal(secrets: try await storage.hmacSecrets())
        let now = clock.now()
        let messageID = "msg_" + random.hex(12)
        let deliveries = try endpoints.map { endpoint in
            let call = WebhookCall(endpointID: endpoint.id, messageID: messageID, body: body)
            return QueuedDelivery(
                id: random.hex(12), channel: WebhookChannel.name, recipient: endpoint.url,
                payload: try seal.seal(JSONEncoder().encode(call)),
                deadline: now.addingTimeInterval(Self.retryWindow), createdAt: now)
        }
        try await storage.enqueueDeliveries(deliveries)
        return deliveries
    }

    /// The event's `data`: who, where, and the person's address when the user still exists.
    private func data(of event: AuditEvent) async throws -> [String: String] {
        var data = ["description": event.detail]
        data["user_id"] = event.userID
        data["client_id"] = event.clientID
        data["ip"] = event.ip
        if let userID = event.userID, let id = User.parse(userID: userID)?.id, let user = try await storage.user(id: id) {
            data["email"] = user.email
            data["phone_number"] = user.phoneNumber
        }
        return data
    }

    /// The Standard Webhooks body: `type`, `timestamp` and `data`.
    static func body(_ type: WebhookEventType, data: [String: String], at: Date) throws -> String {
        struct Body: Encodable {
            var type: String
            var timestamp: String
            var data: [String: String]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = Body(type: type.rawValue, timestamp: ISO8601.string(at), data: data)
        return String(decoding: try encoder.encode(body), as: UTF8.self)
    }
}
