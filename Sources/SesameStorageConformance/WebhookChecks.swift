import Foundation
import SesameCore

enum WebhookChecks {
    static func endpoint(_ id: String, at now: Date, events: [String] = ["user.created", "login.failed"]) -> WebhookEndpoint {
        WebhookEndpoint(
            id: id, url: "https://hooks.example.com/\(id)", events: events, sealedSecret: Array("sealed \(id)".utf8),
            createdAt: now)
    }

    static let all = [
        ConformanceCheck("webhooks: endpoints round-trip, list oldest first, and a duplicate id is refused") { store, clock in
            let now = clock.now()
            try await store.createWebhook(endpoint("wh_b", at: now))
            try await store.createWebhook(endpoint("wh_a", at: now.addingTimeInterval(1), events: ["user.deleted"]))
            try await expect(try await store.webhook(id: "wh_b") == endpoint("wh_b", at: now), "every field round-trips")
            try await expect(try await store.webhooks().map(\.id) == ["wh_b", "wh_a"], "oldest first")
            var refused = false
            do { try await store.createWebhook(endpoint("wh_b", at: now)) } catch { refused = true }
            try await expect(refused, "a duplicate id is refused")
            try await expect(try await store.webhooks().count == 2, "and nothing was added")
        },
        ConformanceCheck("webhooks: a deleted endpoint is gone at once from this store's list, and deleting twice says so") {
            store, clock in
            let now = clock.now()
            try await store.createWebhook(endpoint("wh_1", at: now))
            _ = try await store.webhooks()  // a backend may cache the list: deleting must not leave it stale
            try await expect(try await store.deleteWebhook(id: "wh_1"), "the first delete deletes")
            try await expect(try await !store.deleteWebhook(id: "wh_1"), "the second finds nothing")
            try await expect(try await store.webhook(id: "wh_1") == nil, "gone by id")
            try await expect(try await store.webhooks().isEmpty, "gone from the list")
        },
    ]
}
