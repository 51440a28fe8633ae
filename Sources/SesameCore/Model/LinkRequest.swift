public import Foundation

/// A magic link that works across devices (modelled on OAuth device authorization, RFC 8628):
/// the party that asked for the link holds a poll secret and polls, while the person opens the
/// link on any device and types the two-digit match code the asking screen shows.
///
/// The match code is what stops a stranger's link: someone who starts a login with a victim's
/// address sees the number, but the victim, who only has the mail, does not know it.
public struct LinkRequest: Sendable, Codable, Equatable {
    /// Where a request is in its life; "expired" is not stored but read from ``expiresAt``.
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Waiting for the person to open the link.
        case pending
        /// Confirmed with the right match code on another device; the asker may now finish.
        case approved
        /// Refused: a wrong match code, or "It wasn't me".
        case denied
        /// Finished: the asker signed in, or the link was confirmed in the asking browser itself.
        case completed
    }

    /// The public id (random hex, 24 characters), carried by the mailed link as `request`.
    public var id: String
    /// HMAC of the poll secret (``SecretPurpose/linkRequest``); the secret itself is never stored.
    public var pollSecretHash: [UInt8]
    /// The magic-link ``Challenge`` this request belongs to.
    public var challengeID: String
    /// The application that asked; only it may finish the request.
    public var clientID: String
    public var connection: String
    /// The normalised address the link was sent to.
    public var recipient: String
    /// Two digits, `00`–`99`, shown by the asker and typed on the link's device.
    public var matchCode: String
    public var status: Status
    /// The user's id (`email|…`), set on approval.
    public var userID: String?
    public var createdAt: Date
    /// The end of the connection's link lifetime.
    public var expiresAt: Date
    /// When the request was approved, denied or completed.
    public var decidedAt: Date?
    /// The address the request came from, shown where the link is opened so the person can
    /// tell a sign-in they did not start; nil when unknown (and for requests stored before).
    public var ip: String?

    /// Creates a link request record.
    public init(
        id: String, pollSecretHash: [UInt8], challengeID: String, clientID: String, connection: String,
        recipient: String, matchCode: String, status: Status = .pending, userID: String? = nil, createdAt: Date,
        expiresAt: Date, decidedAt: Date? = nil, ip: String? = nil
    ) {
        self.id = id
        self.pollSecretHash = pollSecretHash
        self.challengeID = challengeID
        self.clientID = clientID
        self.connection = connection
        self.recipient = recipient
        self.matchCode = matchCode
        self.status = status
        self.userID = userID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.decidedAt = decidedAt
        self.ip = ip
    }

    /// Whether the request is still within its lifetime at `now`.
    public func isLive(at now: Date) -> Bool { now < expiresAt }
}

/// What a poll of a link request answers (RFC 8628 §3.5 in the terms of a link).
public enum LinkRequestStatus: String, Sendable, Equatable, CaseIterable {
    case pending, approved, denied, completed, expired
}
