import ArgumentParser
import Foundation
import SesameAPI
import SesameCore
import SesameServer

/// `sesame admin deliveries`: what the durable outbox sent, is sending, and gave up on.
struct DeliveriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliveries", abstract: "Messages and webhook calls in the outbox, and their outcomes.",
        subcommands: [List.self, Retry.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List deliveries, newest first, with the provider's last answer.")
        @OptionGroup var storage: StorageOptions
        @Option(help: "Only this status: pending, sent, failed or suppressed.") var status: String?
        @Option(name: .customLong("to"), help: "Only this recipient (address, number or webhook URL).") var recipient: String?
        @Option(help: "At most this many.") var limit = 50
        @Flag(help: "Print a JSON array.") var json = false

        func validate() throws {
            guard status.map({ QueuedDelivery.Status(rawValue: $0) != nil }) ?? true else {
                throw ValidationError("--status must be one of: pending, sent, failed, suppressed")
            }
        }

        func run() async throws {
            let (status, recipient, limit) = (status.flatMap(QueuedDelivery.Status.init(rawValue:)), recipient, limit)
            let deliveries = try await withDeliveries(storage) { deliveries in
                try await deliveries.list(status: status, recipient: recipient, limit: limit)
            }
            if json { return try printJSON(deliveries.map(DeliveryBody.init)) }
            for delivery in deliveries {
                let error = delivery.lastError.map { "  \($0)" } ?? ""
                print(
                    "\(delivery.id)  \(ISO8601.string(delivery.createdAt))  \(delivery.channel)  \(delivery.recipient)  "
                        + "\(delivery.status.rawValue)  attempts \(delivery.attempts)\(error)")
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry",
            abstract: "Send a failed delivery again (a running server sends it within a second).")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The delivery id.") var id: String
        @Flag(help: "Print the delivery as JSON.") var json = false

        func run() async throws {
            let id = id
            let delivery = try await withDeliveries(storage) { deliveries in try await deliveries.retry(id: id) }
            if json { return try printJSON(DeliveryBody(delivery)) }
            print("delivery \(delivery.id) is due again")
        }
    }
}

/// Runs `body` with the outbox of the configured storage.
private func withDeliveries<T: Sendable>(
    _ options: StorageOptions, _ body: @escaping @Sendable (DeliveryAdministration) async throws -> T
) async throws -> T {
    try await withConfiguredService(
        options, make: { DeliveryAdministration(storage: $1) }, body)
}
