import Foundation
import SesameCore
import SesameStorageConformance
import Testing

/// The hosted page's steps through ``BrowserLogin`` alone: each command ends in one outcome.
@Suite("Core: the browser login")
struct BrowserLoginTests {
    @Test("authorize: no session shows the address form, a session answers at once, a bad callback says why")
    func authorize() async throws {
        try await CoreWorld.run { world in
            var browser = BrowserWorld(world)
            guard case .show(.identifier(let step), let application) = try await browser.run(.authorize(browser.authorization))
            else { throw CoreWorldError("no address form") }
            #expect(step.channel == .email && step.offersOtherChannel && step.offersPasskeys && step.problem == nil)
            #expect(application?.clientID == world.application.clientID)
            try await browser.withoutPasskeys()
            _ = try await browser.run(.verifyCode(browser.authorization, Self.credentials(try await browser.code())))
            guard case .answer(let answer, nil, _) = try await browser.run(.authorize(browser.authorization)) else {
                throw CoreWorldError("the session did not answer")
            }
            #expect(BrowserWorld.code(of: answer) != nil, "single sign-on: a code without asking again")
            var elsewhere = browser.authorization
            elsewhere.redirectURI = "https://evil.example.com/cb"
            guard case .show(.message(.invalidRequest), nil) = try await browser.run(.authorize(elsewhere)) else {
                throw CoreWorldError("a callback the application does not allow was not refused on the page")
            }
        }
    }

    @Test("start: a code is sent and the code step shown; a forged form or a refused address shows the form again")
    func start() async throws {
        try await CoreWorld.run { world in
            var browser = BrowserWorld(world)
            let start = { (recipient: String) in
                BrowserStart(recipient: recipient, sendsLink: false, isResend: false, language: nil, authParams: [:])
            }
            guard case .show(.code(let step), _) = try await browser.run(.start(browser.authorization, start(BrowserWorld.ana)))
            else { throw CoreWorldError("no code step") }
            #expect(
                step.recipient == BrowserWorld.ana && step.problem == nil && world.sender.sent(to: BrowserWorld.ana).count == 1)
            let forged = try await browser.run(.start(browser.authorization, start("bob@example.com")), genuine: false)
            guard case .show(.identifier(let again), _) = forged else { throw CoreWorldError("no address form") }
            #expect(again.problem == .forgedForm && world.sender.sent(to: "bob@example.com").isEmpty)
            guard case .show(.identifier(let refused), _) = try await browser.run(.start(browser.authorization, start("bob")))
            else { throw CoreWorldError("no address form") }
            guard case .startRefused(let error) = refused.problem else { throw CoreWorldError("no refusal") }
            #expect(error.refusal == .passwordlessStart(.email))
        }
    }

    @Test("verify: a right code answers the application and begins the session as of the same moment")
    func verifyCode() async throws {
        try await CoreWorld.run { world in
            var browser = BrowserWorld(world)
            try await browser.withoutPasskeys()
            let code = try await browser.code()
            let wrong = try await browser.run(.verifyCode(browser.authorization, Self.credentials("000000")))
            guard case .show(.code(let step), _) = wrong else { throw CoreWorldError("no code step") }
            #expect(step.problem == .wrongCode(.wrong) && step.recipient == BrowserWorld.ana)
            let signedIn = try await browser.run(.verifyCode(browser.authorization, Self.credentials(code)))
            guard case .answer(let answer, let session?, false) = signedIn else { throw CoreWorldError("no answer") }
            #expect(answer.location.hasPrefix(CoreWorld.callback + "?code=") && answer.user?.email == BrowserWorld.ana)
            #expect(try await browser.authTime(of: answer) == Int(session.session.authTime.timeIntervalSince1970))
        }
    }

    /// Fault: the database fails after the code was consumed and the login recorded, when the
    /// browser session is stored. The person must not be told that the code they typed right
    /// is wrong: typing it again signs them in.
    @Test("verify: a failure after the code was consumed gives it back, and typing it again signs in")
    func verifyFailureInTheMiddle() async throws {
        try await CoreWorld.run { world in
            var browser = BrowserWorld(world)
            try await browser.withoutPasskeys()
            let code = try await browser.code()
            try await world.databaseAway(on: "INSERT ON browser_sessions") {
                await #expect(throws: (any Error).self) {
                    _ = try await browser.run(.verifyCode(browser.authorization, Self.credentials(code)))
                }
            }
            world.clock.advance(by: 2)
            guard
                case .answer(let answer, _?, _) = try await browser.run(
                    .verifyCode(browser.authorization, Self.credentials(code)))
            else { throw CoreWorldError("the retry did not sign in") }
            #expect(BrowserWorld.code(of: answer) != nil)
        }
    }

    @Test("verify where passkeys are allowed: the session is begun and a passkey offered before answering")
    func passkeyOffer() async throws {
        try await CoreWorld.run { world in
            var browser = BrowserWorld(world)
            let code = try await browser.code()
            guard
                case .offerPasskey(let application, let session) = try await browser.run(
                    .verifyCode(browser.authorization, Self.credentials(code)))
            else { throw CoreWorldError("no passkey offer") }
            #expect(application.clientID == world.application.clientID)
            #expect(try await world.sesame.sessions.resume(session.secret)?.1.email == BrowserWorld.ana)
        }
    }

    @Test("verify for a person who has a passkey already: no offer, the authorization continues from the new session")
    func continueWithoutOffer() async throws {
        try await CoreWorld.run { world in
            _ = try await world.signIn(BrowserWorld.ana)
            let user = try #require(try await world.sesame.storage.user(connection: "email", identifier: BrowserWorld.ana))
            try await world.sesame.storage.createPasskey(
                PasskeyCredential(
                    id: "passkey-1", userID: user.id, name: "Passkey", publicKey: [0xA5, 0x01, 0x02], algorithm: -7,
                    signCount: 0, backupEligible: true, backedUp: false, format: "none",
                    aaguid: "00000000-0000-0000-0000-000000000000", createdAt: world.clock.now()))
            var browser = BrowserWorld(world)
            let code = try await browser.code()
            guard
                case .continueAuthorization(let session) = try await browser.run(
                    .verifyCode(browser.authorization, Self.credentials(code)))
            else { throw CoreWorldError("the authorization did not continue") }
            #expect(session.session.userID == user.userID)
            guard case .answer(let answer, nil, _) = try await browser.run(.authorize(browser.authorization)) else {
                throw CoreWorldError("the session did not answer")
            }
            #expect(BrowserWorld.code(of: answer) != nil)
        }
    }

    @Test("passkey: an answer that proves nothing shows the address form, saying the passkey failed")
    func passkeyFailed() async throws {
        try await CoreWorld.run { world in
            var browser = BrowserWorld(world)
            let outcome = try await browser.run(.passkey(browser.authorization, authSession: "nope", response: Data("{}".utf8)))
            guard case .show(.identifier(let step), _) = outcome else { throw CoreWorldError("no address form") }
            #expect(step.problem == .passkeyFailed && browser.sessionSecret == nil)
        }
    }

    static func credentials(_ code: String) -> PasswordlessCredentials {
        PasswordlessCredentials(connection: "email", username: BrowserWorld.ana, code: code)
    }
}
