public import Foundation

/// Sends the opened payload of one queued delivery on its channel.
public protocol DeliveryHandler: Sendable {
    /// Sends `payload`; throws ``DeliveryError`` (permanent or not) when the far side refuses.
    func deliver(_ payload: Data) async throws
}

/// Email and SMS: composes the message from its ``MessageContent`` and hands it to the
/// channel's sender.
struct MessageHandler: DeliveryHandler {
    let delivery: MessageDelivery

    func deliver(_ payload: Data) async throws {
        let content = try MessageContent.decode(from: payload)
        try await delivery.send(delivery.composer.compose(content))
    }
}
