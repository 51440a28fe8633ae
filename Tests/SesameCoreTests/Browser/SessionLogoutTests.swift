import Foundation
import SesameCore
import Testing

/// Who hears of a browser session's end (OpenID Connect Back-Channel Logout 1.0), and what
/// the authorization answers carry (RFC 9207's `iss`).
@Suite("Session logout reaches the applications")
struct SessionLogoutTests {
    static let backchannel = "https://app.example.com/backchannel"

    /// Signs Ana in on the world's application (which registered a back-channel URI), then
    /// answers `others` from the same session (single sign-on). Returns the browser.
    static func signedIn(_ world: CoreWorld, others: [Application] = []) async throws -> BrowserWorld {
        var browser = try await answered(world).browser
        for application in others {
            var authorization = browser.authorization
            authorization.clientID = application.clientID
            guard case .answer = try await browser.run(.authorize(authorization)) else {
                throw CoreWorldError("no single sign-on for \(application.name)")
            }
        }
        return browser
    }

    /// Signs Ana in on the world's application (which registered a back-channel URI); returns
    /// the browser and the answer to the application.
    static func answered(_ world: CoreWorld) async throws -> (browser: BrowserWorld, answer: AuthorizationResponse) {
        _ = try await world.sesame.storage.updateApplication(clientID: world.application.clientID) {
            $0.backchannelLogoutURI = backchannel
        }
        var browser = BrowserWorld(world)
        try await browser.withoutPasskeys()
        let code = try await browser.code()
        guard
            case .answer(let answer, _, _) = try await browser.run(
                .verifyCode(browser.authorization, BrowserLoginTests.credentials(code)))
        else { throw CoreWorldError("no answer") }
        return (browser, answer)
    }

    /// Another application with `uri` as its back-channel logout URI.
    static func application(_ world: CoreWorld, _ name: String, uri: String?) async throws -> Application {
        try await world.sesame.applications.create(name: name, type: .regular) {
            $0.callbacks = [CoreWorld.callback]
            $0.backchannelLogoutURI = uri
        }
    }

    /// The session's id, as storage knows it.
    static func sessionID(_ browser: BrowserWorld) async throws -> String {
        guard let session = try await browser.world.sesame.sessions.resume(browser.sessionSecret)?.0 else {
            throw CoreWorldError("no session")
        }
        return session.id
    }

    static func logoutToken(_ post: CapturingTransport.Post) -> String {
        URLComponents(string: "?" + post.body)?.queryItems?.first { $0.name == "logout_token" }?.value ?? ""
    }

    @Test("logout reaches every application the session answered, and only those")
    func logoutReachesEveryApplication() async throws {
        try await CoreWorld.run { world in
            let second = try await Self.application(world, "Second", uri: "https://second.example.com/logout")
            _ = try await Self.application(world, "Unused", uri: "https://unused.example.com/logout")
            let silent = try await Self.application(world, "Silent", uri: nil)
            let browser = try await Self.signedIn(world, others: [second, silent])
            let sid = try await Self.sessionID(browser)
            #expect(world.logoutTokens.all.isEmpty, "nobody hears of a session that goes on")
            _ = try await world.sesame.logout.logout(
                Logout.Request(sessionSecret: browser.sessionSecret, clientID: nil, returnTo: nil, idTokenHint: nil, state: nil))
            let posts = world.logoutTokens.all
            #expect(Set(posts.map(\.url)) == [Self.backchannel, "https://second.example.com/logout"])
            for post in posts {
                #expect(post.headers["Content-Type"] == "application/x-www-form-urlencoded")
                let token = Self.logoutToken(post)
                let header = BrowserWorld.part(0, of: token)
                let claims = BrowserWorld.part(1, of: token)
                #expect(header["typ"] as? String == "logout+jwt" && header["alg"] as? String == "RS256")
                #expect(claims["iss"] as? String == CoreWorld.issuer && claims["sid"] as? String == sid)
                #expect(claims["sub"] as? String != nil && claims["jti"] as? String != nil)
                let iat = claims["iat"] as? Int ?? 0
                #expect((claims["exp"] as? Int ?? 0) - iat == 120, "a short lifetime")
                let events = claims["events"] as? [String: Any]
                #expect(events?["http://schemas.openid.net/event/backchannel-logout"] != nil)
            }
            #expect(
                Set(posts.map { BrowserWorld.part(1, of: Self.logoutToken($0))["aud"] as? String ?? "" })
                    == [world.application.clientID, second.clientID])
        }
    }

    /// Attack: a logout token passed off as an id_token (token substitution). It has no
    /// `nonce` and is typed `logout+jwt`, so an application checking either refuses it.
    @Test("token substitution: a logout token carries no nonce and its own type")
    func logoutTokenIsNoIDToken() async throws {
        try await CoreWorld.run { world in
            let browser = try await Self.signedIn(world)
            let userID = try #require(try await world.sesame.sessions.resume(browser.sessionSecret)?.1.userID)
            try await world.sesame.sessionAdministration.revokeAll(userID: userID)
            let token = try #require(world.logoutTokens.all.first)
            #expect(BrowserWorld.part(1, of: Self.logoutToken(token))["nonce"] == nil)
            #expect(BrowserWorld.part(0, of: Self.logoutToken(token))["typ"] as? String == "logout+jwt")
        }
    }

    @Test("the id_token of a browser login names the session (sid) the logout token names")
    func idTokenCarriesSid() async throws {
        try await CoreWorld.run { world in
            let (browser, answer) = try await Self.answered(world)
            let claims = try await browser.idTokenClaims(of: answer)
            #expect(claims["sid"] as? String == (try await Self.sessionID(browser)))
        }
    }

    @Test("blocking or deleting the user, and an operator's revocation, reach the applications")
    func operatorsEndSessions() async throws {
        try await CoreWorld.run { world in
            var browser = try await Self.signedIn(world)
            let userID = try #require(try await world.sesame.sessions.resume(browser.sessionSecret)?.1.userID)
            try await world.sesame.users.block(userID)
            #expect(world.logoutTokens.all.count == 1, "a block")
            try await world.sesame.users.unblock(userID)
            browser = try await Self.signedIn(world)
            try await world.sesame.sessionAdministration.revoke(id: try await Self.sessionID(browser), userID: nil)
            #expect(world.logoutTokens.all.count == 2, "an operator's revocation")
            browser = try await Self.signedIn(world)
            try await world.sesame.users.delete(userID)
            #expect(world.logoutTokens.all.count == 3, "a delete")
        }
    }

    /// Attack: on a shared computer, Bo signs in where Ana's session was. Ana's session ends
    /// there, so her applications must hear of it, or they keep her signed in for Bo.
    @Test("shared computer: another person's login ends the first one's application sessions")
    func sharedComputerHandover() async throws {
        try await CoreWorld.run { world in
            var browser = try await Self.signedIn(world)
            let code = try await browser.code(for: "bo@example.com")
            _ = try await browser.run(
                .verifyCode(
                    browser.authorization,
                    PasswordlessCredentials(connection: "email", username: "bo@example.com", code: code)))
            #expect(world.logoutTokens.all.count == 1)
        }
    }

    @Test("the same person signing in again keeps their applications: the next logout reaches them")
    func sameperson() async throws {
        try await CoreWorld.run { world in
            var browser = try await Self.signedIn(world)
            let first = try await Self.sessionID(browser)
            let code = try await browser.code()
            _ = try await browser.run(.verifyCode(browser.authorization, BrowserLoginTests.credentials(code)))
            #expect(world.logoutTokens.all.isEmpty, "signing in again is no logout")
            _ = try await world.sesame.logout.logout(
                Logout.Request(sessionSecret: browser.sessionSecret, clientID: nil, returnTo: nil, idTokenHint: nil, state: nil))
            let sids = world.logoutTokens.all.map { BrowserWorld.part(1, of: Self.logoutToken($0))["sid"] as? String }
            #expect(sids.contains(first), "the sid the application was given first")
        }
    }

    /// Attack: a mix-up (RFC 9207 §1): an application talking to several servers is sent
    /// one server's code in what looks like another's answer. Every answer names its issuer.
    @Test("mix-up: success and error answers carry iss")
    func mixUpIssuer() async throws {
        try await CoreWorld.run { world in
            let (signedIn, answer) = try await Self.answered(world)
            var browser = signedIn
            #expect(answer.parameters.first { $0.0 == "iss" }?.1 == CoreWorld.issuer)
            var refused = browser.authorization
            refused.parameters.prompt = "none"
            browser.sessionSecret = nil
            guard case .answer(let error, _, _) = try await browser.run(.authorize(refused)) else {
                throw CoreWorldError("no error answer")
            }
            #expect(error.isError && error.parameters.first { $0.0 == "iss" }?.1 == CoreWorld.issuer)
            #expect(error.location.contains("iss="))
        }
    }
}
