import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameCore
import SesameStorageConformance
import Testing

/// What the two screens of a cross-device link tell the person: where the request came from,
/// and that a link died.
@Suite("Hosted page: cross-device links say who asked, and when a link died")
struct HostedLinkOriginTests {
    /// Attack (link phishing): a stranger asks for a link with the victim's address and talks
    /// the victim into typing the number from the stranger's screen ("support" on the phone).
    /// The page the victim opens now names the application, the address the request came from
    /// and when, so a request that is not theirs shows before any number is typed.
    @Test("link phishing: the match page names the application, the requesting address and the time")
    func linkPhishingShowsOrigin() async throws {
        try await Harness.run { h in
            let (_, _, link) = try await HostedLinkTests.askForLink(h)
            let id = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "request" }?.value)
            let stored = try #require(try await h.sesame.storage.linkRequest(id: id))
            let phone = try await h.get(link)
            #expect(phone.text.contains("Number on your other screen"))
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
            let when = formatter.string(from: stored.createdAt) + " UTC"
            let origin = stored.ip ?? "an unknown address"
            #expect(phone.text.contains("Asked from \(origin) at \(when)"), "\(phone.text)")
            let application = try #require(try await h.sesame.storage.application(clientID: h.clientID))
            #expect(phone.text.contains(application.name))
        }
    }

    /// Attack (stale link): a second request for the same address replaced the first link,
    /// but the first screen kept waiting for a link that could never be confirmed, until its
    /// lifetime ended; a person told "waiting" keeps trusting that screen.
    @Test("a superseded link: the waiting page is told at once and offers to start again")
    func supersededLinkKeepsWaiting() async throws {
        try await Harness.run { h in
            let (page, first, _) = try await HostedLinkTests.askForLink(h)
            #expect(page.text.contains("data-superseded=") && page.text.contains("id=\"link-restart\""))
            #expect(try await HostedLinkTests.status(h, first) == "pending")
            let (_, second, _) = try await HostedLinkTests.askForLink(h)
            let answer = try await h.get("/authorize/link/status", headers: [.cookie: first]).json()
            #expect(answer["status"] as? String == "expired" && answer["reason"] as? String == "superseded")
            #expect(try await HostedLinkTests.status(h, second) == "pending", "the newest link still waits")
        }
    }

    @Test("a refused link: the waiting page's fallback says so and offers a new link or a code at once")
    func deniedLinkOffersRestart() async throws {
        try await Harness.run { h in
            let (page, cookie, link) = try await HostedLinkTests.askForLink(h)
            let fields = AuthorizeTests.hiddenFields(try await h.get(link).text)
            _ = try await h.form("/passwordless/verify_redirect/deny", fields)
            let finish = try await h.form(
                "/authorize/link/complete", AuthorizeTests.hiddenFields(page.text), headers: [.cookie: cookie])
            #expect(finish.status == .forbidden && finish.text.contains("refused on the other device"))
            #expect(finish.text.contains("Send a new link") && finish.text.contains("Use a code instead"))
            #expect(!finish.text.contains("id=\"match-code\""), "no number left to type")
            var again = AuthorizeTests.hiddenFields(finish.text)
            again["send"] = "link"
            #expect(again["username"] == "ana@example.com")
            let restarted = try await h.form("/authorize/start", again)
            #expect(restarted.text.contains("id=\"match-code\""), "a new link is on its way")
            #expect(h.sender.sent(to: "ana@example.com").count == 2)
        }
    }
}
