import Foundation
import SesameCore
import SesameStorageConformance
import Testing

/// Magic links through ``BrowserLogin``: in the browser that asked, and on another device.
@Suite("Core: magic links in the browser")
struct BrowserLinkTests {
    @Test("a link opened in the asking browser answers the application, begins the session and ends the wait")
    func sameBrowser() async throws {
        try await CoreWorld.run { world in
            var browser = BrowserWorld(world)
            let (wait, answer) = try await browser.link()
            guard
                case .show(.linkConfirm(let page), _) = try await browser.run(
                    .openLink(browser.authorization, requestID: answer.requestID))
            else { throw CoreWorldError("no link page") }
            #expect(!page.asksForMatch, "the asking browser clicks once")
            guard case .answer(let response, _?, _) = try await browser.run(.confirmLink(browser.authorization, answer)) else {
                throw CoreWorldError("no answer")
            }
            #expect(BrowserWorld.code(of: response) != nil)
            #expect(try await browser.status(of: wait) == .completed)
        }
    }

    @Test("on another device: a wrong number stops the sign-in; the right one lets the asker finish as of the approval")
    func otherDevice() async throws {
        try await CoreWorld.run { world in
            var asker = BrowserWorld(world)
            let (wait, answer) = try await asker.link()
            var phone = BrowserWorld(world)
            guard
                case .show(.linkConfirm(let page), _) = try await phone.run(
                    .openLink(asker.authorization, requestID: answer.requestID))
            else { throw CoreWorldError("no link page") }
            #expect(page.asksForMatch && page.askedFrom == "198.51.100.7")
            let pending = try await asker.run(asker.completion(of: wait))
            guard case .show(.linkSent(let still), _) = pending else { throw CoreWorldError("no wait") }
            #expect(still.problem == .linkPending)
            var typed = answer
            typed.match = wait.match
            guard case .show(.message(.matchConfirmed), _) = try await phone.run(.confirmLink(asker.authorization, typed))
            else { throw CoreWorldError("the right number was not accepted") }
            let approvedAt = world.clock.now()
            world.clock.advance(by: 40)
            let done = try await asker.run(asker.completion(of: wait))
            guard case .answer(let response, let session?, true) = done else { throw CoreWorldError("no answer") }
            #expect(session.session.authTime == approvedAt, "the session dates from the approval")
            #expect(try await asker.authTime(of: response) == Int(approvedAt.timeIntervalSince1970))
            #expect(phone.sessionSecret == nil, "the other device is not signed in")
        }
    }

    @Test("on another device: a wrong number or 'it wasn't me' kills the link and tells the asker")
    func refused() async throws {
        try await CoreWorld.run { world in
            var asker = BrowserWorld(world)
            let (wait, answer) = try await asker.link()
            var phone = BrowserWorld(world)
            var wrong = answer
            wrong.match = wait.match == "00" ? "01" : "00"
            guard case .show(.message(.matchWrong), _) = try await phone.run(.confirmLink(asker.authorization, wrong)) else {
                throw CoreWorldError("a wrong number was accepted")
            }
            let done = try await asker.run(asker.completion(of: wait))
            guard case .show(.message(.linkDenied(let recipient)), _) = done else { throw CoreWorldError("not denied") }
            #expect(recipient == BrowserWorld.ana)
            let (_, second) = try await asker.link()
            guard case .show(.message(.linkRefused), _) = try await phone.run(.refuseLink(asker.authorization, second)) else {
                throw CoreWorldError("not refused")
            }
            guard case .show(.message(.linkExpired), _) = try await phone.run(.refuseLink(asker.authorization, second)) else {
                throw CoreWorldError("refused twice")
            }
        }
    }
}
