public import Foundation
public import SesameAPI

/// What a login or renewal gives the app: tokens, their scope, and when the access token ends.
public struct Credentials: Codable, Sendable, Equatable {
    public var accessToken: String
    public var tokenType: String
    /// The verified id_token, when `openid` was granted.
    public var idToken: String?
    /// Present with `offline_access` (and a verified address); renews the session.
    public var refreshToken: String?
    public var scope: String?
    /// When the access token stops working.
    public var expiresAt: Date

    /// Credentials from a token response received at `now`.
    public init(_ body: TokenBody, receivedAt now: Date) {
        accessToken = body.accessToken
        tokenType = body.tokenType
        idToken = body.idToken
        refreshToken = body.refreshToken
        scope = body.scope
        expiresAt = now.addingTimeInterval(TimeInterval(body.expiresIn))
    }
}

/// What `startPasswordless` learned: the same answer for every address, by design.
public struct PasswordlessStart: Sendable, Equatable {
    /// The request's id.
    public var id: String
    /// How many more starts the server allows in this window, when it says.
    public var remaining: Int?
    /// When the window ends, when the server says.
    public var resetsAt: Date?
}
