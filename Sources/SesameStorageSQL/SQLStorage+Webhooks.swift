import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: WebhookRepository {
    /// The cache key of the endpoint list (the only entry of ``cachedWebhooks``).
    private static let allWebhooks = "all"

    public func createWebhook(_ endpoint: WebhookEndpoint) async throws {
        defer { cachedWebhooks.invalidate(Self.allWebhooks) }
        let events = String(decoding: try JSONEncoder().encode(endpoint.events), as: UTF8.self)
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO webhooks (id, url, events, sealed_secret, created_at) VALUES (\(bind: endpoint.id),
                \(bind: endpoint.url), \(bind: events), \(bind: Data(endpoint.sealedSecret)),
                \(bind: endpoint.createdAt.sqlValue))
                """
            ).run()
        }
    }

    public func webhooks() async throws -> [WebhookEndpoint] {
        // Read for every audited event: kept a few seconds, as applications are.
        try await cachedWebhooks.value(for: Self.allWebhooks) {
            try await executor.read { db in
                try await db.raw("SELECT * FROM webhooks ORDER BY created_at, id").all().map(Self.webhook(from:))
            }
        } ?? []
    }

    public func webhook(id: String) async throws -> WebhookEndpoint? {
        try await executor.read { db in
            try await db.raw("SELECT * FROM webhooks WHERE id = \(bind: id)").first().map(Self.webhook(from:))
        }
    }

    public func deleteWebhook(id: String) async throws -> Bool {
        defer { cachedWebhooks.invalidate(Self.allWebhooks) }
        return try await executor.write { db in
            try await db.raw("DELETE FROM webhooks WHERE id = \(bind: id) RETURNING id").first() != nil
        }
    }

    private static func webhook(from row: any SQLRow) throws -> WebhookEndpoint {
        WebhookEndpoint(
            id: try row.string("id"), url: try row.string("url"), events: try row.json("events", as: [String].self),
            sealedSecret: try row.bytes("sealed_secret"), createdAt: try row.date("created_at"))
    }
}
