public import Foundation

/// Posts one webhook call.
public protocol WebhookTransport: Sendable {
    /// POSTs `body` (JSON) to `url` with `headers`; throws ``DeliveryError`` unless the
    /// endpoint answers 2xx.
    func post(url: String, headers: [(name: String, value: String)], body: Data) async throws
}
