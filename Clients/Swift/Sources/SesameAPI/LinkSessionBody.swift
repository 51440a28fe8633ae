/// The `POST /passwordless/link` answer: a magic link is on its way, and the asker polls
/// the token endpoint with `link_session` (RFC 8628 §3.2 in the terms of a link).
public struct LinkSessionBody: Codable, Sendable, Equatable {
    /// The `grant_type` that redeems a link session at `/oauth/token`.
    public static let grantType = "urn:sesame:params:oauth:grant-type:magic-link"

    /// The secret to poll with; shown once.
    public var linkSession: String
    /// The two digits to show: the person types them on the device where they open the link.
    public var matchCode: String
    /// Seconds until the link and the session expire.
    public var expiresIn: Int
    /// Seconds to wait between polls.
    public var interval: Int

    enum CodingKeys: String, CodingKey {
        case linkSession = "link_session", matchCode = "match_code", expiresIn = "expires_in", interval
    }

    /// Creates a body.
    public init(linkSession: String, matchCode: String, expiresIn: Int, interval: Int) {
        self.linkSession = linkSession
        self.matchCode = matchCode
        self.expiresIn = expiresIn
        self.interval = interval
    }
}
