/// A webhook endpoint as `sesame admin webhooks … --json` shows it. The signing secret is
/// present only in the answer to `create`: it is not shown again.
public struct WebhookBody: Codable, Sendable, Equatable {
    public var id: String
    public var url: String
    /// The event types sent there (`user.created`, `login.failed`, …).
    public var events: [String]
    /// An ISO 8601 instant.
    public var createdAt: String
    /// `whsec_…`: the Standard Webhooks signing secret (create only).
    public var secret: String?

    enum CodingKeys: String, CodingKey {
        case id, url, events, secret
        case createdAt = "created_at"
    }

    /// Creates a body.
    public init(id: String, url: String, events: [String], createdAt: String, secret: String? = nil) {
        self.id = id
        self.url = url
        self.events = events
        self.createdAt = createdAt
        self.secret = secret
    }
}
