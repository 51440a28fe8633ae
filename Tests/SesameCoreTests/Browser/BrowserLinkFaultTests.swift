import Foundation
import SQLKit
import SesameCore
import SesameStorageConformance
import Testing

@testable import SesameStorageSQL

/// A failure between the steps of one link login (the database going away for a moment):
/// the link or its request is never left spent with an error, and the page's retry succeeds.
@Suite("Core: magic links survive a failure between their steps")
struct BrowserLinkFaultTests {
    /// Fault: the database fails after the link was consumed and the login recorded, at the
    /// step that tells the waiting tab (the request's update). The browser gets an error; the
    /// link must not be left spent: posting the page again signs the person in.
    @Test("a failure between the link's steps leaves the link usable: posting again signs in")
    func failureInTheMiddle() async throws {
        try await CoreWorld.run { world in
            var browser = BrowserWorld(world)
            let (wait, answer) = try await browser.link()
            try await world.databaseAway(on: "UPDATE ON link_requests") {
                await #expect(throws: (any Error).self) { _ = try await browser.run(.confirmLink(browser.authorization, answer)) }
            }
            #expect(browser.sessionSecret == nil, "no session reached the browser")
            world.clock.advance(by: 2)
            guard case .answer(let response, _?, _) = try await browser.run(.confirmLink(browser.authorization, answer)) else {
                throw CoreWorldError("the retry did not sign in")
            }
            #expect(BrowserWorld.code(of: response) != nil)
            #expect(try await browser.status(of: wait) == .completed)
            guard case .answer(let replay, nil, _) = try await browser.run(.confirmLink(browser.authorization, answer)) else {
                throw CoreWorldError("a spent link was not refused")
            }
            #expect(replay.isError, "once answered, the link is spent")
        }
    }

    /// Fault: the database fails while the waiting browser finishes a link approved on another
    /// device, at its session. The request must stay approved: the page's retry signs it in.
    @Test("a failure while the waiting browser finishes leaves the request approved: the retry signs in")
    func failureWhileFinishing() async throws {
        try await CoreWorld.run { world in
            var asker = BrowserWorld(world)
            let (wait, typed) = try await asker.matchedLink()
            var phone = BrowserWorld(world)
            _ = try await phone.run(.confirmLink(asker.authorization, typed))
            let finish = asker.completion(of: wait)
            try await world.databaseAway(on: "INSERT ON browser_sessions") {
                await #expect(throws: (any Error).self) { _ = try await asker.run(finish) }
            }
            #expect(try await asker.status(of: wait) == .approved)
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
            let (wait, typed) = try await asker.matchedLink()
            var phone = BrowserWorld(world)
            try await world.databaseAway(on: "UPDATE ON link_requests") {
                await #expect(throws: (any Error).self) { _ = try await phone.run(.confirmLink(asker.authorization, typed)) }
            }
            #expect(try await asker.status(of: wait) == .pending)
            guard case .show(.message(.matchConfirmed), _) = try await phone.run(.confirmLink(asker.authorization, typed))
            else { throw CoreWorldError("the retry did not approve") }
            #expect(try await asker.status(of: wait) == .approved)
        }
    }

    /// Fault: the link is posted again while another request is still at work on it (a double
    /// submit, or a retry before a stalled first attempt let go). The page answers as it always
    /// did for a spent link (the application is told `access_denied`), not with a 503; once
    /// the other request's hold runs out, the retry signs in.
    @Test("a link another request is at work on is refused like a spent one, and works once the hold runs out")
    func heldByAnotherRequest() async throws {
        try await CoreWorld.run { world in
            var browser = BrowserWorld(world)
            let (_, answer) = try await browser.link()
            try await world.databaseAway(on: "UPDATE ON link_requests") {
                await #expect(throws: (any Error).self) { _ = try await browser.run(.confirmLink(browser.authorization, answer)) }
            }
            // Another request took the link back up and is still at work on it.
            let storage = try #require(world.sesame.storage as? SQLStorage)
            let until = world.clock.now().addingTimeInterval(10).epochMilliseconds
            try await storage.executor.write { db in
                try await db.raw("UPDATE challenges SET retry_lease_until = \(bind: until)").run()
            }
            guard case .answer(let refused, nil, _) = try await browser.run(.confirmLink(browser.authorization, answer)) else {
                throw CoreWorldError("a held link was not answered like a spent one")
            }
            #expect(refused.parameters.contains { $0 == ("error", "access_denied") })
            world.clock.advance(by: 11)
            guard case .answer(let response, _?, _) = try await browser.run(.confirmLink(browser.authorization, answer)) else {
                throw CoreWorldError("the retry did not sign in")
            }
            #expect(BrowserWorld.code(of: response) != nil)
        }
    }
}
