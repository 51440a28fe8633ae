/// Webhook endpoints, shared by every instance.
public protocol WebhookRepository: Sendable {
    /// Stores an endpoint; throws `.alreadyExists` on a duplicate id.
    func createWebhook(_ endpoint: WebhookEndpoint) async throws
    /// Every endpoint, oldest first. Read on every audited event, so a backend may keep it
    /// for a moment: an endpoint added elsewhere is seen within seconds.
    func webhooks() async throws -> [WebhookEndpoint]
    /// The endpoint with this id, or nil.
    func webhook(id: String) async throws -> WebhookEndpoint?
    /// Deletes an endpoint; false when there was none.
    func deleteWebhook(id: String) async throws -> Bool
}
