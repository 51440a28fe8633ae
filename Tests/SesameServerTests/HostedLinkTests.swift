import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

@Suite("Hosted page: Email me a link, on this device or another, with the match code")
struct HostedLinkTests {
    /// Asks for a link on the page; returns the waiting page, its link cookie and the mailed link's path.
    static func askForLink(_ h: Harness, email: String = "ana@example.com") async throws -> (
        page: TestResponse, cookie: String, link: String
    ) {
        var fields = try await HostedPageTests.addressForm(h, username: email)
        fields["send"] = "link"
        let page = try await h.form("/authorize/start", fields)
        let cookie = try #require(h.formCookies.values.first { $0.contains("sesame_link=") })
        let link = try #require(h.sender.sent(to: email).last?.link)
        return (page, String(cookie.prefix { $0 != ";" }), String(link.dropFirst("https://login.example.com".count)))
    }

    static func status(_ h: Harness, _ cookie: String) async throws -> String? {
        try await h.get("/authorize/link/status", headers: [.cookie: cookie]).json()["status"] as? String
    }

    static func matchCode(_ page: TestResponse) -> String? {
        page.text.components(separatedBy: "id=\"match-code\">").dropFirst().first.map { String($0.prefix(2)) }
    }

    @Test("another device: the right number signs the asking browser in, once")
    func crossDevice() async throws {
        try await Harness.run { h in
            let (page, cookie, link) = try await Self.askForLink(h)
            #expect(page.text.contains("Check your email") && page.text.contains("/assets/link.js"))
            let match = try #require(Self.matchCode(page))
            #expect(link.contains("request="))
            // The phone that opens the link has no link cookie: it asks for the number.
            let phone = try await h.get(link)
            #expect(phone.text.contains("Number on your other screen") && phone.text.contains("It wasn’t me"))
            #expect(try await Self.status(h, cookie) == "pending", "opening the link decides nothing")
            var fields = AuthorizeTests.hiddenFields(phone.text)
            fields["match"] = match
            let done = try await h.form("/passwordless/verify_redirect", fields)
            #expect(done.status == .ok && done.text.contains("You’re signed in on your other screen"))
            #expect(done.headers[values: .setCookie].allSatisfy { !$0.contains("sesame_session=") }, "not the phone")
            #expect(try await Self.status(h, cookie) == "approved")
            let waiting = AuthorizeTests.hiddenFields(page.text)
            let finished = try await h.form("/authorize/link/complete", waiting, headers: [.cookie: cookie])
            #expect(finished.status == .seeOther)
            #expect(MagicLinkTests.query(finished.headers[.location])["code"] != nil)
            #expect(finished.headers[values: .setCookie].contains { $0.hasPrefix("__Host-sesame_session=") })
            let again = try await h.form("/authorize/link/complete", waiting, headers: [.cookie: cookie])
            #expect(again.status == .badRequest && again.headers[.location] == nil, "single use")
        }
    }

    /// Attack: a stranger asks for a link with the victim's address on the stranger's own
    /// browser. The victim opens the mail; without the number on the stranger's screen a
    /// guess stops the sign-in for good, and so does an empty answer.
    @Test("a stranger's link: a wrong or missing number stops the sign-in and kills the link")
    func strangersLink() async throws {
        try await Harness.run { h in
            for wrongAnswer in [nil, "wrong"] as [String?] {
                let (page, cookie, link) = try await Self.askForLink(h)
                let match = try #require(Self.matchCode(page))
                var fields = AuthorizeTests.hiddenFields(try await h.get(link).text)
                fields["match"] = wrongAnswer.map { _ in match == "00" ? "01" : "00" }
                let refused = try await h.form("/passwordless/verify_redirect", fields)
                #expect(refused.status == .forbidden && refused.text.contains("The numbers did not match"))
                #expect(try await Self.status(h, cookie) == "denied")
                fields["match"] = match
                #expect(try await h.form("/passwordless/verify_redirect", fields).status == .badRequest, "the link is dead")
                let finish = try await h.form(
                    "/authorize/link/complete", AuthorizeTests.hiddenFields(page.text), headers: [.cookie: cookie])
                #expect(finish.headers[.location] == nil && finish.text.contains("refused on the other device"))
            }
        }
    }

    @Test("It wasn’t me: the link dies and the asking browser is told")
    func itWasntMe() async throws {
        try await Harness.run { h in
            let (_, cookie, link) = try await Self.askForLink(h)
            let fields = AuthorizeTests.hiddenFields(try await h.get(link).text)
            let denied = try await h.form("/passwordless/verify_redirect/deny", fields)
            #expect(denied.status == .ok && denied.text.contains("Nobody was signed in"))
            #expect(try await Self.status(h, cookie) == "denied")
        }
    }

    @Test("this device: the link signs its tab in; the waiting tab learns it was used")
    func sameDevice() async throws {
        try await Harness.run { h in
            let (_, cookie, link) = try await Self.askForLink(h)
            let tab = try await h.get(link, headers: [.cookie: cookie])
            #expect(tab.text.contains("Continue signing in") && !tab.text.contains("Number on your other screen"))
            let done = try await h.form(
                "/passwordless/verify_redirect", AuthorizeTests.hiddenFields(tab.text), headers: [.cookie: cookie])
            #expect(done.status == .seeOther && MagicLinkTests.query(done.headers[.location])["code"] != nil)
            #expect(try await Self.status(h, cookie) == "completed")
        }
    }

    @Test("before confirmation the waiting page says so; after expiry it offers a new start")
    func pendingAndExpired() async throws {
        try await Harness.run { h in
            let (page, cookie, _) = try await Self.askForLink(h)
            let fields = AuthorizeTests.hiddenFields(page.text)
            let early = try await h.form("/authorize/link/complete", fields, headers: [.cookie: cookie])
            #expect(early.status == .ok && early.text.contains("has not been confirmed yet"))
            #expect(early.text.contains("id=\"match-code\""), "the number stays on screen")
            h.clock.advance(by: 15 * 60 + 1)
            #expect(try await Self.status(h, cookie) == "expired")
            let late = try await h.form("/authorize/link/complete", fields, headers: [.cookie: cookie])
            #expect(late.status == .badRequest && late.text.contains("Use a different address"))
            #expect(try await Self.status(h, "__Host-sesame_link=guessed") == "expired", "a guessed secret")
        }
    }
}
