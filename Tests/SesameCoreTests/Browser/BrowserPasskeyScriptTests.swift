import Foundation
import SesameCore
import SesameStorageConformance
import Testing

/// The hosted page's passkey scripts through ``BrowserLogin``: one call each, with the
/// forgery token and the browser's session decided in Core.
@Suite("Core: the hosted page's passkey scripts")
struct BrowserPasskeyScriptTests {
    /// Attack: another site makes a signed-in browser post to the enrollment endpoints
    /// (cross-site request forgery) to start adding a passkey. Without this browser's form
    /// token the post is refused before anything is read.
    @Test("a script's post without the form token is refused")
    func forgedScriptPost() async throws {
        try await CoreWorld.run { world in
            let browser = BrowserWorld(world)
            let forged = browser.browser(genuine: false)
            for call in [
                { _ = try await world.sesame.browserLogin.passkeyChallenge(browser.authorization, from: forged) },
                { _ = try await world.sesame.browserLogin.enrollmentOptions(browser.authorization, from: forged) },
            ] {
                let error = try await refusal(call)
                #expect(error.code == .accessDenied && error.kind == .forbidden)
            }
            let challenge = try await world.sesame.browserLogin.passkeyChallenge(
                browser.authorization, from: browser.browser())
            #expect(!challenge.authSession.isEmpty)
        }
    }

    /// Attack: a session cookie stolen, or a shared computer left signed in, is used long
    /// after its login to add a passkey. Enrollment needs a session whose login is recent.
    @Test("enrollment needs this browser's session, and a recent login")
    func enrollmentNeedsRecentSession() async throws {
        try await CoreWorld.run { world in
            var browser = BrowserWorld(world)
            let none = try await refusal {
                _ = try await world.sesame.browserLogin.enrollmentOptions(browser.authorization, from: browser.browser())
            }
            #expect(none.message == "Sign in again to add a passkey.")
            let code = try await browser.code()
            guard
                case .offerPasskey = try await browser.run(
                    .verifyCode(browser.authorization, BrowserLoginTests.credentials(code)))
            else { throw CoreWorldError("no passkey offer") }
            let options = try await world.sesame.browserLogin.enrollmentOptions(
                browser.authorization, from: browser.browser())
            #expect(!options.authSession.isEmpty)
            world.clock.advance(by: TimeInterval(world.sesame.passkeys.recentLoginWindow + 1))
            let stale = try await refusal {
                _ = try await world.sesame.browserLogin.enrollmentOptions(browser.authorization, from: browser.browser())
            }
            #expect(stale.message == "Sign in again to add a passkey.")
        }
    }
}
