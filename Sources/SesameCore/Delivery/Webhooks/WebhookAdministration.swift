import Foundation
public import Logging

/// What operators do with webhooks (`sesame admin webhooks …`): add an endpoint for some
/// events (its signing secret is shown once), list, delete, and send a test event.
public struct WebhookAdministration: Sendable, OperatorService {
    let context: OperatorContext
    /// Which private addresses endpoints may name (`webhook_allowed_hosts`); none by default.
    public var addressPolicy = WebhookAddressPolicy()

    /// Creates the service over `storage`.
    public init(
        storage: any SesameStorage, clock: any SesameClock = SystemClock(), random: any RandomSource = SystemRandomSource(),
        logger: Logger = Logger(label: "sesame")
    ) {
        context = OperatorContext(storage: storage, clock: clock, random: random, logger: logger)
    }

    /// A new endpoint and its signing secret (`whsec_…`), which is not shown again.
    /// - Throws: 400 for a URL that is not `https` (or `http` on loopback) or an unknown event.
    public func create(url: String, events: [String]) async throws -> (endpoint: WebhookEndpoint, secret: String) {
        try Self.validate(url: url, policy: addressPolicy)
        let events = try Self.validate(events: events)
        let secret = WebhookSignature.newSecret(random: random)
        let seal = PayloadSeal(secrets: try await storage.hmacSecrets())
        let endpoint = WebhookEndpoint(
            id: "wh_" + random.hex(12), url: url, events: events, sealedSecret: try seal.seal(Data(secret.utf8)),
            createdAt: clock.now())
        try await storage.createWebhook(endpoint)
        await audit.record(.webhookCreated, detail: "\(endpoint.id) \(url) for \(events.joined(separator: ","))")
        return (endpoint, secret)
    }

    /// Every endpoint, oldest first.
    public func list() async throws -> [WebhookEndpoint] {
        try await storage.webhooks()
    }

    /// Deletes an endpoint; calls still queued for it are dropped when their turn comes.
    /// - Throws: 404 for an unknown id.
    public func delete(id: String) async throws {
        guard try await storage.deleteWebhook(id: id) else { throw Self.notFound(id) }
        await audit.record(.webhookDeleted, detail: id)
    }

    /// Queues a `webhook.test` event for one endpoint, whatever events it asked for.
    /// - Returns: the queued delivery, to follow with `sesame admin deliveries list`.
    public func test(id: String) async throws -> QueuedDelivery {
        guard let endpoint = try await storage.webhook(id: id) else { throw Self.notFound(id) }
        let events = WebhookEvents(storage: storage, clock: clock, random: random)
        let body = try WebhookEvents.body(
            .webhookTest, data: ["description": "A test event from sesame admin webhooks test"], at: clock.now())
        return try await events.enqueue(body, to: [endpoint])[0]
    }

    private static func notFound(_ id: String) -> SesameError {
        SesameError(.notFound, .notFound, "No webhook endpoint has the id \(id).")
    }

    /// Receivers are reached over TLS; plain `http` only on this machine, for development. A
    /// literal private address (loopback, RFC 1918, link-local, metadata services…) must be
    /// allowed by `policy`: the server's calls must not reach its own network for whoever
    /// registers an endpoint.
    static func validate(url: String, policy: WebhookAddressPolicy) throws {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty,
            let scheme = components.scheme?.lowercased()
        else { throw SesameError.invalidRequest("The webhook URL \(url) is not an absolute URL.") }
        let loopback = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw SesameError.invalidRequest("A webhook URL must use https (http only on localhost): \(url)")
        }
        guard policy.permitsRegistration(host: host) else {
            throw SesameError.invalidRequest(
                "The webhook URL \(url) names a private address; list it in webhook_allowed_hosts "
                    + "(SESAME_WEBHOOK_ALLOWED_HOSTS) to send events there.")
        }
    }

    /// The events, each known and listed once, in a stable order.
    static func validate(events: [String]) throws -> [String] {
        let known = WebhookEventType.subscribable.map(\.rawValue)
        guard !events.isEmpty else {
            throw SesameError.invalidRequest("Name at least one event: \(known.joined(separator: ", ")).")
        }
        if let unknown = events.first(where: { !known.contains($0) }) {
            throw SesameError.invalidRequest("Unknown webhook event \(unknown); known events: \(known.joined(separator: ", ")).")
        }
        return known.filter(events.contains)
    }
}
