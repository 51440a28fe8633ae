public import Foundation

/// What a challenge's secret looks like to the user.
public enum ChallengeKind: String, Sendable, Codable {
    /// A short numeric code to type.
    case code
    /// A 256-bit token carried by a magic link.
    case link
}

/// A pending one-time secret for one recipient on one connection. Only the newest challenge
/// of a recipient is live; storage keeps the secret as an HMAC only.
public struct Challenge: Sendable, Codable, Equatable {
    public var id: String
    public var connection: String
    /// The normalised email address or phone number.
    public var recipient: String
    public var clientID: String
    public var kind: ChallengeKind
    public var secretHash: [UInt8]
    /// Attempts made so far, including the one being checked.
    public var attempts: Int
    public var maxAttempts: Int
    public var createdAt: Date
    public var expiresAt: Date
    public var consumedAt: Date?

    /// Creates a challenge record.
    public init(
        id: String, connection: String, recipient: String, clientID: String, kind: ChallengeKind,
        secretHash: [UInt8], attempts: Int = 0, maxAttempts: Int, createdAt: Date, expiresAt: Date,
        consumedAt: Date? = nil
    ) {
        self.id = id
        self.connection = connection
        self.recipient = recipient
        self.clientID = clientID
        self.kind = kind
        self.secretHash = secretHash
        self.attempts = attempts
        self.maxAttempts = maxAttempts
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.consumedAt = consumedAt
    }
}
