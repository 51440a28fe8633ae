import Foundation
import Logging
import SesameCore

/// The zero-configuration sender: messages go to the log and to the outbox table, where
/// `sesame outbox` (even from another process while `serve` runs) can list them.
struct ConsoleSender: MessageSender {
    let storage: any EventRepository
    let clock: any SesameClock
    let random: any RandomSource
    let keep: Int
    let logger: Logger

    func send(_ message: OutgoingMessage) async throws {
        try await storage.addOutboxMessage(
            OutboxMessage(
                id: random.hex(8), channel: message.channel.rawValue, recipient: message.recipient, code: message.code,
                link: message.link, subject: message.subject, body: message.body, createdAt: clock.now()),
            keep: keep)
        let secret = message.code.map { "code \($0)" } ?? message.link.map { "link \($0)" } ?? "message"
        logger.notice("outbox: \(message.channel.rawValue) to \(message.recipient): \(secret)")
    }
}
