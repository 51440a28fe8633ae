import ArgumentParser
import Foundation
import Logging
import SesameAPI
import SesameCore
import SesameServer
import SesameStorageSQL

/// `sesame outbox`: the messages the console sender delivered, newest first. Works while
/// `serve` runs (SQLite WAL lets another process read).
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "outbox", abstract: "List recent console-outbox messages.")

    @OptionGroup var storage: StorageOptions

    @Flag(help: "Print a JSON array.")
    var json = false

    @Option(help: "How many messages to show.")
    var limit = 20

    @Option(help: "Only messages to this address or phone number.")
    var to: String?

    func run() async throws {
        let messages = try await withStorage(storage) { try await $0.recentOutboxMessages(limit: limit, recipient: to) }
        if json {
            try printJSON(messages.map(OutboxMessageBody.init))
        } else if messages.isEmpty {
            print("The outbox is empty.")
        } else {
            for message in messages {
                let secret = message.code.map { "code \($0)" } ?? message.link ?? ""
                print("\(ISO8601.string(message.createdAt))  \(message.channel)  \(message.recipient)  \(secret)")
            }
        }
    }
}

extension OutboxMessageBody {
    init(_ message: OutboxMessage) {
        self.init(
            id: message.id, channel: message.channel, recipient: message.recipient, code: message.code, link: message.link,
            subject: message.subject, body: message.body, createdAt: ISO8601.string(message.createdAt))
    }
}
