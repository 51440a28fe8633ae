public import Foundation

/// Where events are POSTed, which ones, and the secret that signs them (Standard Webhooks).
public struct WebhookEndpoint: Sendable, Equatable {
    /// `wh_` and 24 hex digits.
    public var id: String
    /// An `https` URL (or `http` on loopback, for development).
    public var url: String
    /// The event types sent there (``WebhookEventType`` raw values).
    public var events: [String]
    /// The signing secret (`whsec_…`), sealed under the server secret as the outbox's payloads.
    public var sealedSecret: [UInt8]
    public var createdAt: Date

    /// Creates an endpoint record.
    public init(id: String, url: String, events: [String], sealedSecret: [UInt8], createdAt: Date) {
        self.id = id
        self.url = url
        self.events = events
        self.sealedSecret = sealedSecret
        self.createdAt = createdAt
    }
}
