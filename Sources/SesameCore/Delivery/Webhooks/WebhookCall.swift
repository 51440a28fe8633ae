import Foundation

/// What the outbox keeps (sealed) for one webhook call: the endpoint and the message. The
/// message id is fixed when the event happens, so every retry carries the same
/// `webhook-id` and receivers can drop duplicates.
struct WebhookCall: Codable, Sendable {
    var endpointID: String
    var messageID: String
    /// The JSON body, exactly as signed and sent.
    var body: String

    enum CodingKeys: String, CodingKey {
        case endpointID = "endpoint_id", messageID = "message_id", body
    }
}

/// Sends a queued webhook call: looks up the endpoint (deleted since: the call is dropped),
/// signs the body at send time, and posts it.
struct WebhookHandler: DeliveryHandler {
    let storage: any WebhookRepository
    let seal: PayloadSeal
    let transport: (any WebhookTransport)?
    let clock: any SesameClock

    func deliver(_ payload: Data) async throws {
        let call = try JSONDecoder().decode(WebhookCall.self, from: payload)
        guard let transport else { throw DeliveryError(message: "this server cannot post webhooks", permanent: true) }
        guard let endpoint = try await storage.webhook(id: call.endpointID) else {
            throw DeliveryError(message: "webhook endpoint \(call.endpointID) was deleted", permanent: true)
        }
        let secret = String(decoding: try seal.open(endpoint.sealedSecret), as: UTF8.self)
        let timestamp = Int64(clock.now().timeIntervalSince1970)
        let body = Data(call.body.utf8)
        let signature = try WebhookSignature.sign(id: call.messageID, timestamp: timestamp, body: body, secret: secret)
        try await transport.post(
            url: endpoint.url,
            headers: [
                ("webhook-id", call.messageID), ("webhook-timestamp", "\(timestamp)"), ("webhook-signature", signature),
            ], body: body)
    }
}
