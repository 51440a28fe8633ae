import Foundation
import JWTKit

/// Logout from a browser: Auth0's `GET /v2/logout` and OpenID Connect RP-initiated logout
/// (`end_session_endpoint`). The browser's session always ends; the browser is sent on only
/// to a URL the application lists as an allowed logout URL, never anywhere else (an open
/// redirect would let any link on the login domain forward people to a phishing page).
public struct Logout: Sendable {
    let applications: any ApplicationRepository
    let sessions: BrowserSessions
    let keys: KeyRing
    /// Our issuer: an `id_token_hint` must name it.
    let issuer: String

    /// A logout request, already decoded.
    public struct Request: Sendable {
        public var sessionSecret: String?
        public var clientID: String?
        /// `returnTo` or `post_logout_redirect_uri`.
        public var returnTo: String?
        /// OIDC: an id_token Sesame issued, naming the application when `client_id` is absent.
        public var idTokenHint: String?
        /// OIDC: carried back to `post_logout_redirect_uri`.
        public var state: String?

        /// Creates a request.
        public init(sessionSecret: String?, clientID: String?, returnTo: String?, idTokenHint: String?, state: String?) {
            self.sessionSecret = sessionSecret
            self.clientID = clientID
            self.returnTo = returnTo
            self.idTokenHint = idTokenHint
            self.state = state
        }
    }

    /// Whether the request shows that an application sent it, so the session may end without
    /// asking the person (OpenID Connect RP-Initiated Logout §2 asks them otherwise): an
    /// id_token of ours as `id_token_hint` (expired ones too: apps log out with the one they
    /// hold), or, as Auth0's SDKs send it, a `client_id` with a `returnTo` that application
    /// registered. Anything less may be a page of another site ending the session by a link.
    public func isVouchedFor(_ request: Request) async throws -> Bool {
        if let hint = request.idTokenHint, !hint.isEmpty, (try? await audience(of: hint)) != nil { return true }
        guard let clientID = request.clientID, !clientID.isEmpty, let returnTo = request.returnTo, !returnTo.isEmpty,
            let application = try await applications.application(clientID: clientID)
        else { return false }
        return application.allowsLogoutURL(returnTo)
    }

    /// What a logout ended in.
    public struct Ended: Sendable {
        /// Where to send the browser; nil to show "signed out".
        public var location: String?
        /// Why the browser is not sent on (a 400 to show, the session ended all the same).
        public var refusal: SesameError?
        /// The front-channel logout pages of the applications the session answered, with
        /// `iss` and `sid`, for the page to load in hidden frames before going on.
        public var frontchannelURLs: [String]
    }

    /// Ends the browser's session and returns where to send it: nil to show "signed out".
    /// - Throws: 400 `invalid_request` (after the session has ended) for a `returnTo` the
    ///   application does not allow, an unknown application or a forged id_token_hint.
    public func logout(_ request: Request) async throws -> String? {
        let ended = try await end(request)
        if let refusal = ended.refusal { throw refusal }
        return ended.location
    }

    /// Ends the browser's session (telling the applications it answered) and says where the
    /// browser goes next and which front-channel logout pages it loads first.
    public func end(_ request: Request) async throws -> Ended {
        let session = try await sessions.end(request.sessionSecret)
        var frames: [String] = []
        if let session { frames = try await sessions.frontchannelLogoutURLs(of: session) }
        do {
            return Ended(location: try await returnLocation(request), refusal: nil, frontchannelURLs: frames)
        } catch let error as SesameError where error.kind == .badRequest {
            return Ended(location: nil, refusal: error, frontchannelURLs: frames)
        }
    }

    /// The checked return URL (with `state`), or nil when the request names none.
    private func returnLocation(_ request: Request) async throws -> String? {
        guard let returnTo = request.returnTo, !returnTo.isEmpty else { return nil }
        var clientID = request.clientID
        if clientID == nil { clientID = try await audience(of: request.idTokenHint) }
        let candidates: [Application]
        if let clientID {
            guard let application = try await applications.application(clientID: clientID) else {
                throw SesameError.invalidRequest("The logout names an unknown application.")
            }
            candidates = [application]
        } else {
            candidates = try await applications.listApplications()
        }
        guard candidates.contains(where: { $0.allowsLogoutURL(returnTo) }) else {
            throw SesameError.invalidRequest(
                "The return URL is not an allowed logout URL of the application. You are signed out.")
        }
        guard let state = request.state else { return returnTo }
        return AuthorizationResponse(redirectURI: returnTo, mode: .query, parameters: [("state", state)]).location
    }

    /// The application an id_token of ours was issued to (its signature and issuer checked,
    /// its expiry not: an app logs out with the id_token it holds, often long expired).
    private func audience(of idTokenHint: String?) async throws -> String? {
        guard let idTokenHint, !idTokenHint.isEmpty else { return nil }
        let hint: IDTokenHint
        do {
            hint = try await keys.signer().verify(idTokenHint, as: IDTokenHint.self)
        } catch {
            throw SesameError.invalidRequest("id_token_hint is not an id_token issued here.")
        }
        guard hint.iss == issuer else { throw SesameError.invalidRequest("id_token_hint is not an id_token issued here.") }
        return hint.aud
    }
}

/// The part of an id_token a logout needs.
private struct IDTokenHint: JWTPayload {
    let aud: String
    let iss: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
