import Foundation
import SesameCore
import SesameStorageConformance

/// A ``CoreWorld`` seen from the hosted pages: one browser, its cookies, and the steps the
/// pages post, each one call to ``BrowserLogin``.
struct BrowserWorld {
    let world: CoreWorld
    /// This browser's session and link cookies, as the last outcomes set them.
    var sessionSecret: String?
    var linkSecret: String?

    static let ana = "ana@example.com"

    init(_ world: CoreWorld) {
        self.world = world
    }

    /// The authorization request of the world's application, with PKCE.
    var authorization: BrowserAuthorization {
        BrowserAuthorization(
            clientID: world.application.clientID, redirectURI: CoreWorld.callback,
            parameters: AuthorizeParameters(
                state: "s1", scope: "openid", codeChallenge: PasswordlessLoginTests.challenge, codeChallengeMethod: "S256"))
    }

    /// This browser, posting a genuine form unless told otherwise.
    func browser(genuine: Bool = true, linkSecret: String?? = .none) -> BrowserContext {
        BrowserContext(
            sessionSecret: sessionSecret, linkSecret: linkSecret ?? self.linkSecret, formIsGenuine: genuine,
            ip: "198.51.100.7", userAgent: "Tests")
    }

    /// Runs one step and keeps the cookies it sets, as a browser would.
    mutating func run(_ command: BrowserLogin.Command, genuine: Bool = true) async throws -> BrowserLoginOutcome {
        let outcome = try await world.sesame.browserLogin.run(command, from: browser(genuine: genuine))
        switch outcome {
        case .answer(_, let session?, _), .offerPasskey(_, let session), .continueAuthorization(let session):
            sessionSecret = session.secret
        case .show(.linkSent(let wait), _):
            linkSecret = wait.started?.pollSecret ?? linkSecret
        default: break
        }
        return outcome
    }

    /// Starts a code login for `email` on the hosted page and returns the mailed code.
    mutating func code(for email: String = ana) async throws -> String {
        let start = BrowserStart(recipient: email, sendsLink: false, isResend: false, language: nil, authParams: [:])
        _ = try await run(.start(authorization, start))
        guard let code = world.sender.sent(to: email).last?.code else { throw CoreWorldError("no code for \(email)") }
        return code
    }

    /// Asks for a link on the hosted page; returns the wait and the link's answer as its page posts it.
    mutating func link(for email: String = ana) async throws -> (LinkWait, BrowserLinkAnswer) {
        let start = BrowserStart(
            recipient: email, sendsLink: true, isResend: false, language: nil, authParams: ["redirect_uri": CoreWorld.callback])
        guard case .show(.linkSent(let wait), _) = try await run(.start(authorization, start)),
            let link = world.sender.sent(to: email).last?.link, let query = URLComponents(string: link)?.queryItems
        else { throw CoreWorldError("no link for \(email)") }
        let value = { (name: String) in query.first { $0.name == name }?.value }
        let credentials = PasswordlessCredentials(connection: "email", username: email, code: value("verification_code"))
        return (wait, BrowserLinkAnswer(credentials: credentials, requestID: value("request")))
    }

    /// Asks for a link; returns the wait and the link's answer with the right number typed, as
    /// the page on another device posts it.
    mutating func matchedLink(for email: String = ana) async throws -> (LinkWait, BrowserLinkAnswer) {
        var (wait, answer) = try await link(for: email)
        answer.match = wait.match
        return (wait, answer)
    }

    /// What the waiting page posts to finish its link.
    func completion(of wait: LinkWait) -> BrowserLogin.Command {
        .completeLink(authorization, recipient: wait.recipient, match: wait.match)
    }

    /// What the waiting page's poll reads.
    func status(of wait: LinkWait) async throws -> LinkRequestStatus {
        try await world.sesame.linkRequests.status(pollSecret: wait.started?.pollSecret)
    }

    /// Takes passkey sign-in away from the world's application, so a code login answers at once.
    func withoutPasskeys() async throws {
        _ = try await world.sesame.storage.updateApplication(clientID: world.application.clientID) {
            $0.grantTypes.removeAll { $0 == GrantType.webauthn }
        }
    }

    /// The authorization code of a successful answer.
    static func code(of answer: AuthorizationResponse) -> String? {
        answer.parameters.first { $0.0 == "code" }?.1
    }

    /// Exchanges an answer's code and returns the id token's `auth_time`.
    func authTime(of answer: AuthorizationResponse) async throws -> Int? {
        try await idTokenClaims(of: answer)["auth_time"] as? Int
    }

    /// Exchanges an answer's code (of `application`, the world's by default) and returns the
    /// id token's claims.
    func idTokenClaims(of answer: AuthorizationResponse, application: Application? = nil) async throws -> [String: Any] {
        let tokens = try await world.sesame.tokens.exchange(
            code: Self.code(of: answer), redirectURI: CoreWorld.callback, codeVerifier: PasswordlessLoginTests.verifier,
            application: application ?? world.application)
        return Self.part(1, of: tokens.idToken ?? "")
    }

    /// The JSON of a JWT's header (0) or claims (1); empty when it is not one.
    static func part(_ index: Int, of jwt: String) -> [String: Any] {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3 else { return [:] }
        var base64 = parts[index].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
    }
}
