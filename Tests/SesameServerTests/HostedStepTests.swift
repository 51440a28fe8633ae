import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameServer
import SesameStorageConformance
import Testing

@Suite("Hosted page: every step a GET after its POST, code states, a declined passkey offer, escaping")
struct HostedStepTests {
    /// `GET /authorize/step` with the test's authorize parameters.
    static func stepQuery(_ h: Harness, state: String = "s-1") -> String {
        AuthorizeTests().authorizeQuery(h).replacingOccurrences(of: "/authorize?", with: "/authorize/step?")
            .replacingOccurrences(of: "state=s-1", with: "state=\(state)")
    }

    /// The cookie (`name=value`) a response set, by name.
    static func cookie(_ name: String, in settings: [String]) -> String? {
        settings.first { $0.hasPrefix("__Host-\(name)=") }.map { String($0.prefix { $0 != ";" }) }
    }

    @Test("a posted step answers 303; its page shows again on every GET and sends nothing more")
    func reloadSendsNothing() async throws {
        try await Harness.run { h in
            let fields = try await HostedPageTests.addressForm(h, username: "ana@example.com")
            let codePage = try await h.form("/authorize/start", fields)
            #expect(codePage.status == .ok && codePage.text.contains("action=\"/authorize/verify\""))
            let step = try #require(Self.cookie("sesame_step", in: h.formCookies.values))
            for _ in 0..<2 {
                let again = try await h.get(Self.stepQuery(h), headers: [.cookie: step])
                #expect(again.status == .ok && again.text.contains("ana@example.com"))
            }
            #expect(h.sender.sent(to: "ana@example.com").count == 1, "a reload sends no second code")
        }
    }

    /// Attack: page-content injection. A step cookie the server did not sign (planted from a
    /// sibling subdomain over http, or edited) would make the page say the code went to an
    /// address the attacker chose; a genuine step of another login (another request, another
    /// tab) would show the wrong one. Neither is shown: the browser goes back to the address form.
    @Test("a forged or foreign step cookie is not shown")
    func forgedStepCookie() async throws {
        try await Harness.run { h in
            let fields = try await HostedPageTests.addressForm(h, username: "ana@example.com")
            _ = try await h.form("/authorize/start", fields)
            let genuine = try #require(Self.cookie("sesame_step", in: h.formCookies.values))
            let (name, value) = (genuine.prefix { $0 != "=" }, genuine.drop { $0 != "=" }.dropFirst())
            let parts = value.split(separator: ".")
            let payload = String(decoding: try #require(Base64URL.decode(String(parts[0]))), as: UTF8.self)
            let edited = Base64URL.encode(Array(payload.replacingOccurrences(of: "ana@", with: "evil@").utf8))
            let forged = try await h.get(Self.stepQuery(h), headers: [.cookie: "\(name)=\(edited).\(parts[1])"])
            #expect(forged.status == .seeOther && forged.headers[.location]?.hasPrefix("/authorize?") == true)
            #expect(!forged.text.contains("evil@example.com"))
            let foreign = try await h.get(Self.stepQuery(h, state: "another"), headers: [.cookie: genuine])
            #expect(foreign.status == .seeOther && foreign.headers[.location]?.hasPrefix("/authorize?") == true)
        }
    }

    @Test("a code a newer one replaced says so; a code typed with spaces or dashes works on the page only")
    func codeStates() async throws {
        try await Harness.run { h in
            let fields = try await HostedPageTests.addressForm(h, username: "ana@example.com")
            var codeFields = AuthorizeTests.hiddenFields(try await h.form("/authorize/start", fields).text)
            let first = try #require(h.code(for: "ana@example.com"))
            _ = try await h.form("/authorize/start", codeFields)  // "Send a new code"
            let newest = try #require(h.code(for: "ana@example.com"))
            codeFields["otp"] = first
            let superseded = try await h.form("/authorize/verify", codeFields)
            #expect(superseded.status == .badRequest && superseded.text.contains("A newer code was sent"))
            // The Authentication API keeps Auth0's exact comparison.
            let spaced = "\(newest.prefix(3)) \(newest.dropFirst(3))"
            #expect(try await h.otp("ana@example.com", spaced).status == .forbidden)
            codeFields["otp"] = "\(newest.prefix(3))-\(newest.dropFirst(3))".replacingOccurrences(of: "-", with: " - ")
            let done = try await h.form("/authorize/verify", codeFields)
            #expect(done.status == .ok && done.text.contains("id=\"enroll-form\""), "signed in, offered a passkey")
        }
    }

    @Test("Not now on the passkey offer is remembered for that person in that browser, not for another")
    func passkeyLater() async throws {
        try await Harness.run { h in
            let (session, offer) = try await HostedPageTests.codeLogin(h)
            let start = try #require(offer.text.range(of: "id=\"skip\" href=\""))
            let href = String(offer.text[start.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
            let later = try await h.get(href, headers: [.cookie: session])
            #expect(later.status == .seeOther && later.headers[.location]?.hasPrefix("/authorize?") == true)
            let declined = try #require(Self.cookie("sesame_passkey_later", in: later.headers[values: .setCookie]))
            #expect(later.headers[values: .setCookie].contains { $0.contains("Max-Age=2592000") && $0.contains("Secure") })

            let again = try await Self.verify(h, "ana@example.com", cookie: declined)
            #expect(again.status == .seeOther && again.headers[.location]?.hasPrefix("/authorize?") == true, "no offer")
            let other = try await Self.verify(h, "bo@example.com", cookie: declined)
            #expect(other.status == .ok && other.text.contains("id=\"enroll-form\""), "another person is offered one")
        }
    }

    @Test("a link's own page, after its POST, shows how it ended again on reload, posting nothing")
    func linkPageReload() async throws {
        try await Harness.run { h in
            let (page, cookie, link) = try await HostedLinkTests.askForLink(h)
            var fields = AuthorizeTests.hiddenFields(try await h.get(link).text)
            fields["match"] = HostedLinkTests.matchCode(page)
            let done = try await h.form("/passwordless/verify_redirect", fields)
            #expect(done.status == .ok && done.text.contains("You’re signed in on your other screen"))
            let step = try #require(Self.cookie("sesame_step", in: h.formCookies.values))
            let again = try await h.get(link, headers: [.cookie: step])
            #expect(again.text.contains("You’re signed in on your other screen"), "not “expired”")
            #expect(try await HostedLinkTests.status(h, cookie) == "approved")
            let other = try await h.get(link)
            #expect(!other.text.contains("You’re signed in on your other screen"), "only this browser's step")
            // Elsewhere the link is spent, and its page offers to start that login again.
            #expect(other.text.contains("Send a new link") && other.text.contains("/authorize?"))
            #expect(other.text.contains("login_hint=ana"))
        }
    }

    /// A code login for `email` whose check carries `cookie`.
    static func verify(_ h: Harness, _ email: String, cookie: String) async throws -> TestResponse {
        let fields = try await HostedPageTests.addressForm(h, username: email)
        var codeFields = AuthorizeTests.hiddenFields(try await h.form("/authorize/start", fields).text)
        codeFields["otp"] = h.code(for: email)
        return try await h.form("/authorize/verify", codeFields, headers: [.cookie: cookie])
    }

    /// Attack: cross-site scripting. The page's alert takes finished HTML (its strings); what
    /// a query says (an application's `error_description`) is escaped before it gets there.
    @Test("the welcome page's alert escapes what the query says")
    func alertEscapesTheQuery() async throws {
        try await Harness.run { h in
            let page = try await h.get("/welcome?error=x&error_description=%3Cscript%3Ealert(1)%3C%2Fscript%3E")
            #expect(page.status == .badRequest && page.text.contains("&lt;script&gt;alert(1)"))
            #expect(!page.text.contains("<script>alert(1)"))
        }
    }

    @Test("the tab title names the application with its characters escaped once")
    func titleEscapedOnce() async throws {
        try await Harness.run { h in
            _ = try await h.sesame.storage.updateApplication(clientID: h.clientID) { $0.name = "Ben & Jerry's" }
            let page = try await h.get(AuthorizeTests().authorizeQuery(h))
            #expect(page.text.contains("<title>Sign in to Ben &amp; Jerry&#39;s</title>"), "\(page.text.prefix(600))")
            #expect(page.text.contains("<link rel=\"icon\" href=\"/assets/favicon.svg\""))
            #expect(try await h.get("/assets/favicon.svg").headers[.contentType] == "image/svg+xml")
        }
    }
}
