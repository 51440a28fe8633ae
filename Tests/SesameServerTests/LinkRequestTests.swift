import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

/// A started link request as the terminal sees it, and the mailed link as the person sees it.
struct StartedLink {
    let wait: LinkSessionBody
    let email: String
    let link: [String: String]

    var id: String? { link["request"] }
    var credentials: PasswordlessCredentials {
        PasswordlessCredentials(connection: "email", username: email, code: link["verification_code"])
    }
    /// A number that is not the one the asker shows.
    var wrongMatch: String { wait.matchCode == "00" ? "01" : "00" }
}

extension Harness {
    /// `POST /passwordless/link`, and the link the person then receives.
    func startLink(email: String = "ana@example.com", clientID: String? = nil) async throws -> StartedLink {
        let response = try await post(
            "/passwordless/link", ["client_id": clientID ?? self.clientID, "connection": "email", "email": email])
        guard response.status == .ok else { throw HarnessError("link start failed: \(response.text)") }
        let link = try #require(sender.sent(to: email).last?.link)
        let items = URLComponents(string: link)?.queryItems ?? []
        return StartedLink(
            wait: try response.decode(LinkSessionBody.self), email: email,
            link: Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") }))
    }

    /// One poll of the token endpoint with the magic-link grant.
    func poll(_ linkSession: String, clientID: String? = nil) async throws -> TestResponse {
        try await form(
            "/oauth/token",
            [
                "grant_type": GrantType.magicLink, "client_id": clientID ?? self.clientID, "link_session": linkSession,
                "scope": "openid profile email",
            ])
    }

    /// Confirms the link on "another device" with `match`, through the Core API the page uses.
    @discardableResult
    func approve(_ started: StartedLink, match: String? = nil) async throws -> User {
        try await sesame.linkRequests.approve(
            id: started.id, match: match ?? started.wait.matchCode, credentials: started.credentials, ip: "203.0.113.9")
    }
}

/// Expects `body` to throw a ``SesameError`` with `code`.
func expectRefusal(_ code: SesameError.Code, _ body: () async throws -> Void) async {
    await #expect {
        try await body()
    } throws: {
        ($0 as? SesameError)?.code == code
    }
}

@Suite("Link requests: magic links across devices with a match code")
struct LinkRequestTests {
    @Test("start, poll while pending, approve with the number, tokens once")
    func fullFlow() async throws {
        try await Harness.run { h in
            let started = try await h.startLink()
            #expect(started.wait.interval == 2 && started.wait.expiresIn == 900)
            #expect(started.wait.matchCode.count == 2 && started.wait.matchCode.allSatisfy(\.isNumber))
            #expect(started.id?.count == 24 && started.link["verification_code"] != nil)
            #expect(!started.link.values.contains(started.wait.matchCode), "the link never carries the number")
            let pending = try await h.poll(started.wait.linkSession)
            #expect(pending.status == .badRequest && pending.error?.error == "authorization_pending")
            #expect(try await h.sesame.linkRequests.status(pollSecret: started.wait.linkSession) == .pending)
            let user = try await h.approve(started)
            #expect(user.email == "ana@example.com" && user.emailVerified)
            #expect(try await h.sesame.linkRequests.status(pollSecret: started.wait.linkSession) == .approved)
            let tokens = try await h.poll(started.wait.linkSession)
            #expect(tokens.status == .ok)
            #expect(try tokens.tokens().idToken != nil)
            // Single use: a second redemption of the same session gets nothing.
            let again = try await h.poll(started.wait.linkSession)
            #expect(again.status == .badRequest && again.error?.error == "expired_token")
            let logins = try await h.sesame.storage.user(id: user.id)?.loginsCount
            #expect(logins == 1, "the login is counted once, when the link is confirmed")
        }
    }

    /// Attack: a stranger starts a login with the victim's address, hoping the victim clicks
    /// the link. The victim does not know the number on the stranger's screen.
    @Test("a stranger's link: a wrong number refuses it, kills the link, and the asker gets access_denied")
    func strangersLink() async throws {
        try await Harness.run { h in
            let started = try await h.startLink(email: "victim@example.com")
            await #expect {
                try await h.approve(started, match: started.wrongMatch)
            } throws: {
                let error = $0 as? SesameError
                return error?.code == .accessDenied
                    && error?.message
                        == "The numbers did not match, so this sign-in was stopped. Start again on the other screen."
            }
            await expectRefusal(.expiredToken) { try await h.approve(started) }
            let otp = try await h.otp(started.email, started.link["verification_code"])
            #expect(otp.status == .forbidden, "the link's secret is spent")
            let poll = try await h.poll(started.wait.linkSession)
            #expect(poll.status == .forbidden && poll.error?.error == "access_denied")
            #expect(try await h.sesame.storage.user(connection: "email", identifier: "victim@example.com") == nil)
            let audit = try await h.sesame.storage.recentAuditEvents(limit: 5).map(\.type)
            #expect(audit.contains(AuditEventType.linkRequestDenied.rawValue))
        }
    }

    /// Attack: the request id is in the link's URL and may leak (logs, a shoulder); knowing it
    /// without the link's secret must neither sign in nor stop the sign-in.
    @Test("the request id alone cannot approve or deny")
    func idAlone() async throws {
        try await Harness.run { h in
            let started = try await h.startLink()
            let forged = PasswordlessCredentials(connection: "email", username: started.email, code: "guessed")
            // Two tries only: a link takes three wrong secrets (the connection's max_attempts), and
            // then dies as any code does; the right number with a wrong secret is checked in otherLink.
            await expectRefusal(.invalidGrant) {
                _ = try await h.sesame.linkRequests.approve(
                    id: started.id, match: started.wrongMatch, credentials: forged, ip: nil)
            }
            await expectRefusal(.invalidGrant) { try await h.sesame.linkRequests.deny(id: started.id, credentials: forged) }
            #expect(try await h.sesame.linkRequests.markCompleted(id: started.id) == false, "an unspent link is not done")
            #expect(try await h.sesame.linkRequests.status(pollSecret: started.wait.linkSession) == .pending)
            try await h.approve(started)
            #expect(try await h.poll(started.wait.linkSession).status == .ok)
        }
    }

    /// Attack: a link of another request of the same person (say an older tab) cannot
    /// approve this request.
    @Test("a link of another request does not approve this one")
    func otherLink() async throws {
        try await Harness.run { h in
            let first = try await h.startLink()
            let second = try await h.startLink()
            await expectRefusal(.invalidGrant) {
                _ = try await h.sesame.linkRequests.approve(
                    id: first.id, match: first.wait.matchCode, credentials: second.credentials, ip: nil)
            }
            // Not approved: the second start replaced the first link, so the first request
            // reads as expired (its link can no longer be confirmed).
            #expect(try await h.sesame.linkRequests.status(pollSecret: first.wait.linkSession) == .expired)
        }
    }

    @Test("\"It wasn't me\" with the link refuses the request and kills the link")
    func deny() async throws {
        try await Harness.run { h in
            let started = try await h.startLink()
            try await h.sesame.linkRequests.deny(id: started.id, credentials: started.credentials)
            #expect(try await h.poll(started.wait.linkSession).error?.error == "access_denied")
            await expectRefusal(.expiredToken) { try await h.approve(started) }
            #expect(try await h.otp(started.email, started.link["verification_code"]).status == .forbidden)
        }
    }

    /// Attack: guessing a poll secret, or presenting one's own for another request.
    @Test("a guessed poll secret and another request's secret get nothing")
    func pollSecrets() async throws {
        try await Harness.run { h in
            let ana = try await h.startLink(email: "ana@example.com")
            let bo = try await h.startLink(email: "bo@example.com")
            try await h.approve(bo)
            for guess in ["", "x", String(repeating: "A", count: 43), String(repeating: "A", count: 500)] {
                let response = try await h.poll(guess)
                #expect(response.status == .badRequest && response.error?.error == "expired_token")
            }
            #expect(try await h.poll(ana.wait.linkSession).error?.error == "authorization_pending", "Ana's is still Ana's")
            let boTokens = try await h.poll(bo.wait.linkSession)
            #expect(boTokens.status == .ok)
            #expect(try await h.sesame.linkRequests.status(pollSecret: "guessed") == .expired)
        }
    }

    /// Attack: another application (less trusted, say) redeems a session it did not start.
    @Test("another application cannot redeem the link session")
    func otherApplication() async throws {
        try await Harness.run { h in
            let other = SesameCore.Application(
                clientID: "other-app", clientSecret: nil, name: "Other", type: .native, createdAt: h.clock.now())
            try await h.sesame.storage.createApplication(other)
            let started = try await h.startLink()
            try await h.approve(started)
            let stolen = try await h.poll(started.wait.linkSession, clientID: "other-app")
            #expect(stolen.status == .badRequest && stolen.error?.error == "expired_token")
            #expect(try await h.poll(started.wait.linkSession).status == .ok, "the asker still gets its tokens")
        }
    }

    @Test("an application that may not use passwordless codes may not use link sessions")
    func grantNotAllowed() async throws {
        try await Harness.run { h in
            let started = try await h.startLink()
            try await h.approve(started)
            _ = try await h.sesame.storage.updateApplication(clientID: h.clientID) {
                $0.grantTypes.removeAll { $0 == GrantType.passwordlessOTP }
            }
            let refused = try await h.poll(started.wait.linkSession)
            #expect(refused.status == .forbidden && refused.error?.error == "unauthorized_client")
        }
    }

    @Test("the request expires with the link: no approval, the asker hears expired_token")
    func expiry() async throws {
        try await Harness.run { h in
            let started = try await h.startLink()
            let approvedLate = try await h.startLink(email: "bo@example.com")
            try await h.approve(approvedLate)
            h.clock.advance(by: 901)
            await expectRefusal(.expiredToken) { try await h.approve(started) }
            #expect(try await h.sesame.linkRequests.request(id: started.id) == nil)
            #expect(try await h.poll(started.wait.linkSession).error?.error == "expired_token")
            #expect(try await h.poll(approvedLate.wait.linkSession).error?.error == "expired_token")
            #expect(try await h.sesame.linkRequests.status(pollSecret: started.wait.linkSession) == .expired)
        }
    }

    /// Attack: an account blocked between the click and the poll still gets in.
    @Test("a user blocked after approving cannot complete")
    func blockedUser() async throws {
        try await Harness.run { h in
            let started = try await h.startLink()
            let user = try await h.approve(started)
            _ = try await h.sesame.storage.setUserBlocked(id: user.id, true, at: h.clock.now())
            let refused = try await h.poll(started.wait.linkSession)
            #expect(refused.status == .unauthorized && refused.error?.errorDescription == "user is blocked")
        }
    }

    /// Attack: two confirmations racing (two tabs, a replay) approve twice.
    @Test("of concurrent approvals exactly one succeeds")
    func approvalRace() async throws {
        try await Harness.run { h in
            let started = try await h.startLink()
            let (linkRequests, id, match, credentials) = (
                h.sesame.linkRequests, started.id, started.wait.matchCode, started.credentials
            )
            let results = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        (try? await linkRequests.approve(id: id, match: match, credentials: credentials, ip: nil)) != nil
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 1)
        }
    }

    /// Attack: telling registered addresses from others by the answer (account enumeration).
    @Test("the answer is the same for known and unknown addresses")
    func identicalAnswers() async throws {
        try await Harness.run { h in
            _ = try await h.login(email: "known@example.com")
            var shapes: [[String]] = []
            for email in ["known@example.com", "unknown@example.com"] {
                let response = try await h.post(
                    "/passwordless/link", ["client_id": h.clientID, "connection": "email", "email": email])
                #expect(response.status == .ok)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                let body = try response.decode(LinkSessionBody.self)
                shapes.append(object.keys.sorted() + ["\(body.expiresIn)", "\(body.interval)", "\(body.linkSession.count)"])
                #expect(response.header("Cache-Control") == "no-store")
            }
            #expect(shapes[0] == shapes[1])
        }
    }

    @Test("sms is refused; a form body works; a missing address is Auth0's error")
    func requestShapes() async throws {
        try await Harness.run { h in
            let sms = try await h.post(
                "/passwordless/link", ["client_id": h.clientID, "connection": "sms", "email": "ana@example.com"])
            #expect(sms.status == .badRequest && sms.error?.error == "invalid_request")
            #expect(sms.error?.errorDescription == "Links across devices are sent by email only.")
            let form = try await h.form("/passwordless/link", ["client_id": h.clientID, "email": "ana@example.com"])
            #expect(form.status == .ok)
            let missing = try await h.post("/passwordless/link", ["client_id": h.clientID])
            #expect(missing.status == .badRequest && missing.error?.error == "bad.email")
            let unknownClient = try await h.post("/passwordless/link", ["client_id": "nope", "email": "ana@example.com"])
            #expect(unknownClient.status == .unauthorized)
        }
    }

    @Test("confirmed in the asking browser itself: the request reads as completed")
    func sameDevice() async throws {
        try await Harness.run { h in
            let callback = "http://localhost:3000/callback"
            let started = try await h.sesame.linkRequests.start(
                PasswordlessStartRequest(
                    clientID: h.clientID, clientSecret: nil, connection: "email", email: "ana@example.com",
                    phoneNumber: nil, send: nil, authParams: ["redirect_uri": callback], ip: "198.51.100.7"))
            let request = try #require(try await h.sesame.linkRequests.request(id: started.id))
            #expect(h.sesame.linkRequests.isAsker(started.pollSecret, of: request))
            #expect(
                !h.sesame.linkRequests.isAsker("someone else", of: request) && !h.sesame.linkRequests.isAsker(nil, of: request))
            let link = try #require(h.sender.sent(to: "ana@example.com").last?.link)
            let query = URLComponents(string: link)?.queryItems ?? []
            #expect(query.contains { $0.name == "request" && $0.value == started.id })
            #expect(query.contains { $0.name == "redirect_uri" && $0.value == callback })
            let secret = query.first { $0.name == "verification_code" }?.value
            let credentials = PasswordlessCredentials(connection: "email", username: "ana@example.com", code: secret)
            let outcome = try await h.sesame.browserLogin.run(
                .confirmLink(
                    BrowserAuthorization(clientID: h.clientID, redirectURI: callback, parameters: AuthorizeParameters()),
                    BrowserLinkAnswer(credentials: credentials, requestID: started.id)),
                from: BrowserContext(
                    sessionSecret: nil, linkSecret: started.pollSecret, formIsGenuine: true, ip: "198.51.100.7",
                    userAgent: nil))
            guard case .answer(let response, _?, _) = outcome else { throw CancellationError() }
            #expect(response.user != nil)
            #expect(try await h.sesame.linkRequests.status(pollSecret: started.pollSecret) == .completed)
            #expect(try await !h.sesame.linkRequests.markCompleted(id: started.id), "completed once, when the link was used")
            await expectRefusal(.expiredToken) { _ = try await h.sesame.linkRequests.complete(pollSecret: started.pollSecret) }
        }
    }

    @Test("discovery lists the magic-link grant")
    func discovery() async throws {
        try await Harness.run { h in
            let response = try await h.get("/.well-known/openid-configuration")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            #expect((document["grant_types_supported"] as? [String])?.contains(GrantType.magicLink) == true)
        }
    }
}
