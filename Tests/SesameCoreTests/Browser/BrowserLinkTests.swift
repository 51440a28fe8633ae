import Foundation
import SQLKit
import SesameCore
import SesameStorageConformance
import Testing

@testable import SesameStorageSQL

/// Magic links through ``BrowserLogin``: in the browser that asked, on another device, and a
/// failure between the steps of one link login.
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
            #expect(try await world.sesame.linkRequests.status(pollSecret: wait.started?.pollSecret) == .completed)
        }
    }

    /// Fault: the database fails after the link was consumed and the login recorded, at the
    /// step that tells the waiting tab (the request's update). The browser gets an error; the
    /// link must not be left spent: posting the page again signs the person in.
    @Test("a failure between the link's steps leaves the link usable: posting again signs in")
    func failureInTheMiddle() async throws {
        try await CoreWorld.run { world in
            var browser = BrowserWorld(world)
            let (wait, answer) = try await browser.link()
            try await Self.databaseAway(world, on: "UPDATE ON link_requests") {
                await #expect(throws: (any Error).self) { _ = try await browser.run(.confirmLink(browser.authorization, answer)) }
            }
            #expect(browser.sessionSecret == nil, "no session reached the browser")
            world.clock.advance(by: 2)
            guard case .answer(let response, _?, _) = try await browser.run(.confirmLink(browser.authorization, answer)) else {
                throw CoreWorldError("the retry did not sign in")
            }
            #expect(BrowserWorld.code(of: response) != nil)
            #expect(try await world.sesame.linkRequests.status(pollSecret: wait.started?.pollSecret) == .completed)
            guard case .answer(let replay, nil, _) = try await browser.run(.confirmLink(browser.authorization, answer)) else {
                throw CoreWorldError("a spent link was not refused")
            }
            #expect(replay.isError, "once answered, the link is spent")
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
            let pending = try await asker.run(.completeLink(asker.authorization, recipient: wait.recipient, match: wait.match))
            guard case .show(.linkSent(let still), _) = pending else { throw CoreWorldError("no wait") }
            #expect(still.problem == .linkPending)
            var typed = answer
            typed.match = wait.match
            guard case .show(.message(.matchConfirmed), _) = try await phone.run(.confirmLink(asker.authorization, typed))
            else { throw CoreWorldError("the right number was not accepted") }
            let approvedAt = world.clock.now()
            world.clock.advance(by: 40)
            let done = try await asker.run(.completeLink(asker.authorization, recipient: wait.recipient, match: wait.match))
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
            let done = try await asker.run(.completeLink(asker.authorization, recipient: wait.recipient, match: wait.match))
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

    /// Fault: the database fails while the waiting browser finishes a link approved on another
    /// device, at its session. The request must stay approved: the page's retry signs it in.
    @Test("a failure while the waiting browser finishes leaves the request approved: the retry signs in")
    func failureWhileFinishing() async throws {
        try await CoreWorld.run { world in
            var asker = BrowserWorld(world)
            let (wait, answer) = try await asker.link()
            var typed = answer
            typed.match = wait.match
            var phone = BrowserWorld(world)
            _ = try await phone.run(.confirmLink(asker.authorization, typed))
            let finish = BrowserLogin.Command.completeLink(asker.authorization, recipient: wait.recipient, match: wait.match)
            try await Self.databaseAway(world, on: "INSERT ON browser_sessions") {
                await #expect(throws: (any Error).self) { _ = try await asker.run(finish) }
            }
            #expect(try await world.sesame.linkRequests.status(pollSecret: wait.started?.pollSecret) == .approved)
            guard case .answer(_, _?, true) = try await asker.run(finish) else { throw CoreWorldError("the retry failed") }
            guard case .show(.message(.linkWaitExpired), _) = try await asker.run(finish) else {
                throw CoreWorldError("a finished request was finished again")
            }
        }
    }

    /// Fault: the database fails on another device between the link's consumption and the
    /// request's approval. The link must not be left spent with the asker stuck: the page's
    /// retry approves the request.
    @Test("a failure while approving on another device leaves the link for the retry")
    func failureWhileApproving() async throws {
        try await CoreWorld.run { world in
            var asker = BrowserWorld(world)
            let (wait, answer) = try await asker.link()
            var typed = answer
            typed.match = wait.match
            var phone = BrowserWorld(world)
            try await Self.databaseAway(world, on: "UPDATE ON link_requests") {
                await #expect(throws: (any Error).self) { _ = try await phone.run(.confirmLink(asker.authorization, typed)) }
            }
            #expect(try await world.sesame.linkRequests.status(pollSecret: wait.started?.pollSecret) == .pending)
            guard case .show(.message(.matchConfirmed), _) = try await phone.run(.confirmLink(asker.authorization, typed))
            else { throw CoreWorldError("the retry did not approve") }
            #expect(try await world.sesame.linkRequests.status(pollSecret: wait.started?.pollSecret) == .approved)
        }
    }

    /// Runs `body` while every `event` (`UPDATE ON link_requests`) fails as a database going away would.
    static func databaseAway(_ world: CoreWorld, on event: String, _ body: () async throws -> Void) async throws {
        let storage = try #require(world.sesame.storage as? SQLStorage)
        try await storage.executor.write { db in
            try await db.raw(
                """
                CREATE TRIGGER database_away BEFORE \(unsafeRaw: event)
                BEGIN SELECT RAISE(ABORT, 'terminating connection due to administrator command'); END
                """
            ).run()
        }
        try await body()
        try await storage.executor.write { db in try await db.raw("DROP TRIGGER database_away").run() }
    }
}
