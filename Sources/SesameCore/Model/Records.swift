public import Foundation

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
    /// When the key starts signing. Until then it is only published, so relying parties and
    /// every instance know it before the first token it signs reaches them.
    public var activeFrom: Date
    /// When the key was withdrawn: no longer published, and tokens it signed no longer verify.
    public var retiredAt: Date?

    /// Creates a signing key record; without `activeFrom` the key signs from its creation.
    public init(kid: String, privateKeyPEM: String, createdAt: Date, activeFrom: Date? = nil, retiredAt: Date? = nil) {
        self.kid = kid
        self.privateKeyPEM = privateKeyPEM
        self.createdAt = createdAt
        self.activeFrom = activeFrom ?? createdAt
        self.retiredAt = retiredAt
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
    /// The event's place in the log, once stored (Auth0's `log_id`).
    public var seq: Int64?
    /// How many identical events the row stands for: repeated refusals of one kind from one
    /// source within a minute add to the first one's row instead of writing rows of their own.
    public var count: Int = 1

    /// Creates an audit record.
    public init(
        type: String, userID: String? = nil, clientID: String? = nil, ip: String? = nil, detail: String, at: Date,
        seq: Int64? = nil, count: Int = 1
    ) {
        self.seq = seq
        self.count = count
        self.type = type
        self.userID = userID
        self.clientID = clientID
        self.ip = ip
        self.detail = detail
        self.at = at
    }
}

/// How many expired rows of each kind one sweep removed.
public struct SweepCounts: Sendable, Equatable {
    /// Rows removed, by table.
    public var removed: [String: Int]

    /// Creates counts.
    public init(removed: [String: Int] = [:]) {
        self.removed = removed
    }

    /// Every row removed.
    public var total: Int { removed.values.reduce(0, +) }
}

/// Which audit events to read: newest first, filtered by user, type and time, a page at a time.
public struct AuditQuery: Sendable, Equatable {
    public var userID: String?
    public var type: String?
    /// Only events of one of these types (one of Auth0's codes stands for several); nil: any.
    public var types: [String]?
    /// Only events at or after this instant.
    public var since: Date?
    /// Only the event with this number (`GET /api/v2/logs/{id}`).
    public var seq: Int64?
    /// Only events numbered after this one, oldest first (Auth0's `from`/`take`, which reads
    /// on from a log id without missing what arrives meanwhile).
    public var after: Int64?
    public var limit: Int
    public var offset: Int

    /// Creates a query; `limit` is clamped to 1...1000.
    public init(
        userID: String? = nil, type: String? = nil, types: [String]? = nil, since: Date? = nil, seq: Int64? = nil,
        after: Int64? = nil, limit: Int = 50, offset: Int = 0
    ) {
        self.userID = userID
        self.type = type
        self.types = types
        self.since = since
        self.seq = seq
        self.after = after
        self.limit = min(max(limit, 1), 1000)
        self.offset = max(offset, 0)
    }
}
