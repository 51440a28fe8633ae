import Foundation
import JWTKit

/// What the outbox keeps (sealed) for one back-channel logout: the application, whose URI
/// is read when the token is sent (an operator may have changed or removed it since), and
/// the token's fixed claims. The `jti` is fixed when the session ends, so a retry carries
/// the same one and an application can drop a duplicate.
struct LogoutNotice: Codable, Sendable {
    /// The outbox channel of logout tokens.
    static let channel = "backchannel_logout"

    var clientID: String
    var subject: String
    var sid: String
    var jti: String

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id", subject = "sub", sid, jti
    }
}

/// The claims of a logout token (OpenID Connect Back-Channel Logout 1.0 §2.4): no `nonce`,
/// so it can never pass for an id_token, and the back-channel logout event.
struct LogoutTokenClaims: JWTPayload, Equatable {
    static let event = "http://schemas.openid.net/event/backchannel-logout"
    /// How long a token is good for: it is posted the moment it is signed.
    static let lifetime: Int64 = 120

    var iss: String
    var aud: String
    var iat: Int64
    var exp: Int64
    var jti: String
    var sub: String
    var sid: String
    var events: [String: [String: String]]

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Sends a queued logout token: signs it at send time (so a retry after a while is not
/// expired) and form-POSTs `logout_token=…` to the URI the application has now.
struct LogoutTokenHandler: DeliveryHandler {
    let applications: any ApplicationRepository
    let keys: KeyRing
    let issuer: String
    let transport: (any WebhookTransport)?
    let clock: any SesameClock

    func deliver(_ payload: Data) async throws {
        let notice = try JSONDecoder().decode(LogoutNotice.self, from: payload)
        guard let transport else {
            throw DeliveryError(message: "this server cannot post logout tokens", permanent: true)
        }
        // Only the URI an operator registered now is called: a notice never names its own target.
        guard let application = try await applications.application(clientID: notice.clientID),
            let uri = application.backchannelLogoutURI
        else {
            throw DeliveryError(message: "application \(notice.clientID) has no back-channel logout URI now", permanent: true)
        }
        let now = clock.now().epochSeconds
        let claims = LogoutTokenClaims(
            iss: issuer, aud: notice.clientID, iat: now, exp: now + LogoutTokenClaims.lifetime, jti: notice.jti,
            sub: notice.subject, sid: notice.sid, events: [LogoutTokenClaims.event: [:]])
        let token = try await keys.signer().sign(claims, type: "logout+jwt")
        var form = URLComponents()
        form.queryItems = [URLQueryItem(name: "logout_token", value: token)]
        let body = (form.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        try await transport.post(
            url: uri, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data(body.utf8))
    }
}
