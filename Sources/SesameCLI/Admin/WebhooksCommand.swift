import ArgumentParser
import Foundation
import Logging
import SesameAPI
import SesameCore
import SesameServer

/// `sesame admin webhooks`: where events are POSTed, signed the Standard Webhooks way.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Endpoints that receive signed events (user.created, login.succeeded, …) from every instance.",
        subcommands: [Create.self, List.self, Delete.self, Test.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Add an endpoint; prints its whsec_ signing secret once.",
            discussion: "Events: \(WebhookEventType.subscribable.map(\.rawValue).joined(separator: ", ")).")
        @OptionGroup var storage: StorageOptions
        @Option(
            help: ArgumentHelp(
                "Where events are POSTed: an https URL (http only on localhost; private addresses only when listed in "
                    + "webhook_allowed_hosts)."))
        var url: String
        @Option(parsing: .upToNextOption, help: "The events to send (space or comma separated).") var events: [String]
        @Flag(help: "Print the endpoint and its secret as JSON.") var json = false

        func run() async throws {
            let (url, events) = (url, events.flatMap { $0.split(separator: ",").map(String.init) })
            // The configuration says which private hosts endpoints may name (webhook_allowed_hosts).
            let (endpoint, secret) = try await withConfiguredService(
                storage,
                make: { configuration, store in
                    var webhooks = WebhookAdministration(storage: store, clock: SystemClock(), logger: .command)
                    webhooks.addressPolicy = configuration.webhookAddressPolicy
                    return webhooks
                }, { (webhooks: WebhookAdministration) in try await webhooks.create(url: url, events: events) })
            if json { return try printJSON(WebhookBody(endpoint, secret: secret)) }
            print("webhook \(endpoint.id) → \(endpoint.url) for \(endpoint.events.joined(separator: ", "))")
            print("signing secret (shown once): \(secret)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the endpoints, oldest first.")
        @OptionGroup var storage: StorageOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let endpoints = try await administer(storage, with: WebhookAdministration.self) { try await $0.list() }
            if json { return try printJSON(endpoints.map { WebhookBody($0) }) }
            for endpoint in endpoints {
                print("\(endpoint.id)  \(endpoint.url)  \(endpoint.events.joined(separator: ","))")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete an endpoint; calls still queued for it are dropped.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The endpoint id (wh_…).") var id: String

        func run() async throws {
            let id = id
            try await administer(storage, with: WebhookAdministration.self) { try await $0.delete(id: id) }
            print("webhook \(id) deleted")
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Queue a webhook.test event for an endpoint; a running server sends it within a second.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The endpoint id (wh_…).") var id: String
        @Flag(help: "Print the queued delivery as JSON.") var json = false

        func run() async throws {
            let id = id
            let delivery = try await administer(storage, with: WebhookAdministration.self) { try await $0.test(id: id) }
            if json { return try printJSON(DeliveryBody(delivery)) }
            print("test event queued as delivery \(delivery.id): see sesame admin deliveries list --to \(delivery.recipient)")
        }
    }
}

extension WebhookAdministration: AdministrationService {
    init(storage: any SesameStorage, clock: any SesameClock, logger: Logger) {
        self.init(storage: storage, clock: clock, random: SystemRandomSource(), logger: logger)
    }
}
