import Foundation

/// A message the console outbox holds for operators and tests (`sesame outbox`).
public struct OutboxMessage: Sendable, Codable, Equatable {
    public var id: String
    /// `email` or `sms`.
    public var channel: String
    public var recipient: String
    public var code: String?
    public var link: String?
    public var subject: String?
    public var body: String
    public var createdAt: Date

    /// Creates an outbox record.
    public init(
        id: String, channel: String, recipient: String, code: String?, link: String?, subject: String?,
        body: String, createdAt: Date
    ) {
        self.id = id
        self.channel = channel
        self.recipient = recipient
        self.code = code
        self.link = link
        self.subject = subject
        self.body = body
        self.createdAt = createdAt
    }
}

/// An RS256 signing key. The newest key signs; all published keys verify.
public struct SigningKeyRecord: Sendable, Codable, Equatable {
    public var kid: String
    public var privateKeyPEM: String
    public var createdAt: Date

    /// Creates a signing key record.
    public init(kid: String, privateKeyPEM: String, createdAt: Date) {
        self.kid = kid
        self.privateKeyPEM = privateKeyPEM
        self.createdAt = createdAt
    }
}

/// A security-relevant event, kept for operators.
public struct AuditEvent: Sendable, Codable, Equatable {
    public var type: String
    public var userID: String?
    public var clientID: String?
    public var ip: String?
    public var detail: String
    public var at: Date

    /// Creates an audit record.
    public init(type: String, userID: String? = nil, clientID: String? = nil, ip: String? = nil, detail: String, at: Date) {
        self.type = type
        self.userID = userID
        self.clientID = clientID
        self.ip = ip
        self.detail = detail
        self.at = at
    }
}
