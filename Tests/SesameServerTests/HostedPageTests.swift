import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameServer
import SesameStorageConformance
import Testing

@Suite("Hosted page: forgery tokens, languages, branding, phone numbers, new codes, templates, passkey offer")
struct HostedPageTests {
    static let callback = AuthorizeTests.callback

    /// The address form's fields with `username` filled in.
    static func addressForm(_ h: Harness, _ query: String? = nil, headers: HTTPFields = [:], username: String) async throws
        -> [String: String]
    {
        let page = try await h.get(query ?? AuthorizeTests().authorizeQuery(h), headers: headers)
        var fields = AuthorizeTests.hiddenFields(page.text)
        fields["username"] = username
        return fields
    }

    /// Attack: login CSRF and message spraying. Another site makes the victim's browser post
    /// the hosted forms (to send codes in its name, or to sign it in to the attacker's
    /// account); without this browser's token, nothing is sent or consumed.
    @Test("a form posted without this browser's token is refused and sends nothing")
    func forgery() async throws {
        try await Harness.run { h in
            var fields = try await Self.addressForm(h, username: "ana@example.com")
            let token = try #require(fields["csrf_token"])
            fields["csrf_token"] = nil
            fields["username"] = "attacker@example.com"
            let missing = try await h.form("/authorize/start", fields)
            #expect(missing.status == .forbidden && missing.text.contains("This page had expired"))
            #expect(!missing.text.contains("attacker@example.com"), "a forged post fills in nothing")
            fields["username"] = "ana@example.com"
            fields["csrf_token"] = Base64URL.encode(SHA256.hash(data: Data("guess".utf8)))
            #expect(try await h.form("/authorize/start", fields).status == .forbidden)
            // The right token with another browser's cookie (the attacker's own) is refused too.
            let other = "__Host-sesame_csrf=attackers-own-binding"
            fields["csrf_token"] = token
            h.formCookie.value = other
            #expect(try await h.form("/authorize/start", fields).status == .forbidden)
            #expect(h.sender.sent(to: "ana@example.com").isEmpty, "no message was sent")
            let challenge = try await h.form(
                "/authorize/passkey/challenge", ["client_id": h.clientID, "redirect_uri": Self.callback])
            #expect(challenge.status == .forbidden)
        }
    }

    @Test("the language follows ui_locales, then Accept-Language, then English")
    func languages() async throws {
        try await Harness.run { h in
            let base = AuthorizeTests().authorizeQuery(h)
            let french = try await h.get(base + "&ui_locales=fr-CA%20en")
            #expect(french.text.contains("<html lang=\"fr\" dir=\"ltr\">") && french.text.contains("Adresse e‑mail"))
            let german = try await h.get(base, headers: [.acceptLanguage: "de-DE,de;q=0.9,en;q=0.5"])
            #expect(german.text.contains("<html lang=\"de\" dir=\"ltr\">") && german.text.contains("Code per E-Mail senden"))
            let spanish = try await h.get(base + "&ui_locales=es", headers: [.acceptLanguage: "de"])
            #expect(spanish.text.contains("<html lang=\"es\" dir=\"ltr\">"), "ui_locales comes first")
            let portuguese = try await h.get(base, headers: [.acceptLanguage: "pt-PT"])
            #expect(portuguese.text.contains("<html lang=\"pt-br\" dir=\"ltr\">"), "the language's one regional file")
            let arabic = try await h.get(base + "&ui_locales=ar")
            #expect(arabic.text.contains("<html lang=\"ar\" dir=\"rtl\">"))
            let unknown = try await h.get(base, headers: [.acceptLanguage: "fi, zh;q=0.8"])
            #expect(unknown.text.contains("<html lang=\"en\" dir=\"ltr\">") && unknown.text.contains("Email me a code"))
            for label in ["Email me a code", "Email me a link", "Sign in with a passkey", "Use a phone number instead"] {
                #expect(unknown.text.contains(label), "\(label)")
            }
            #expect(unknown.text.contains("type=\"email\"") && unknown.text.contains("autocomplete=\"email webauthn\""))
            let passkeyFirst = try await h.get(base + "&connection=passkey")
            #expect(passkeyFirst.text.contains("data-preferred=\"1\""), "connection=passkey puts the passkey first")
        }
    }

    @Test("an application's logo and colour; the inline style is allowed by its hash only")
    func branding() async throws {
        try await Harness.run { h in
            _ = try await h.sesame.storage.updateApplication(clientID: h.clientID) {
                $0.brandColor = BrandColor(hex: "#ffe066")
                $0.logoURL = "https://cdn.example.com/logo.png"
                $0.name = "Acme <Shop>"
            }
            let page = try await h.get(AuthorizeTests().authorizeQuery(h))
            #expect(page.text.contains("<img src=\"https://cdn.example.com/logo.png\""))
            #expect(page.text.contains("Acme &lt;Shop&gt;") && !page.text.contains("Acme <Shop>"))
            let style = try #require(
                page.text.components(separatedBy: "<style>").dropFirst().first?.components(
                    separatedBy: "</style>"
                ).first)
            #expect(style.contains("--brand:#ffe066") && style.contains("--on-brand:#111418"))
            #expect(style.contains("--accent-light:#2453d3"), "too pale for links on white: the default accent")
            let hash = Data(SHA256.hash(data: Data(style.utf8))).base64EncodedString()
            let policy = try #require(page.header("Content-Security-Policy"))
            #expect(policy.contains("style-src 'self' 'sha256-\(hash)'") && !policy.contains("unsafe-inline"))
            #expect(policy.contains("frame-ancestors 'none'") && policy.contains("default-src 'none'"))
            #expect(try await h.get("/assets/sesame.css").text.contains("prefers-color-scheme: dark"))
        }
    }

    @Test("national phone numbers with connections.sms.default_country; the phone form's input")
    func nationalNumbers() async throws {
        try await Harness.run(pages: try PageTemplates.load(defaultCountry: "GB")) { h in
            let query = AuthorizeTests().authorizeQuery(h) + "&connection=sms"
            let page = try await h.get(query)
            #expect(page.text.contains("type=\"tel\"") && page.text.contains("autocomplete=\"tel\""))
            #expect(page.text.contains("Text me a code") && page.text.contains("Use an email address instead"))
            let fields = try await Self.addressForm(h, query, username: "07700 900123")
            let codePage = try await h.form("/authorize/start", fields)
            #expect(codePage.status == .ok && codePage.text.contains("+447700900123"))
            #expect(h.code(for: "+447700900123") != nil)
            #expect(codePage.text.contains("autocomplete=\"one-time-code\""))
        }
    }

    @Test("Send a new code sends one, then shows the wait when the recipient's limit is reached")
    func newCode() async throws {
        try await Harness.run { h in
            let fields = try await Self.addressForm(h, username: "ana@example.com")
            let codePage = try await h.form("/authorize/start", fields)
            #expect(codePage.text.contains("Send a new code") && codePage.text.contains("Use a different address"))
            let resend = AuthorizeTests.hiddenFields(codePage.text)
            #expect(resend["resend"] == "1" && resend["username"] == "ana@example.com")
            let again = try await h.form("/authorize/start", resend)
            #expect(again.status == .ok && again.text.contains("We sent a new code to ana@example.com."))
            #expect(h.sender.sent(to: "ana@example.com").count == 2)
            for _ in 0..<3 { _ = try await h.form("/authorize/start", resend) }
            let limited = try await h.form("/authorize/start", resend)
            #expect(limited.status == .tooManyRequests && limited.text.contains("You can ask for a new code in"))
            #expect(limited.text.contains("action=\"/authorize/verify\""), "still on the code step")
        }
    }

    @Test("templates and language files in the data directory replace the shipped ones; a broken one stops the start")
    func overrides() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-templates-\(UUID())")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("locales"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"email_code": "Mail me a code, {{app}}"}"#.utf8)
            .write(to: directory.appendingPathComponent("locales/en.json"))
        try Data(#"{"language": "Svenska", "email_code": "Skicka en kod till mig"}"#.utf8)
            .write(to: directory.appendingPathComponent("locales/sv.json"))
        let pages = try PageTemplates.load(overrides: directory.path)
        try await Harness.run(pages: pages) { h in
            let english = try await h.get(AuthorizeTests().authorizeQuery(h)).text
            #expect(english.contains("Mail me a code, ") && english.contains("Email me a link"))
            let swedish = try await h.get(AuthorizeTests().authorizeQuery(h), headers: [.acceptLanguage: "sv"]).text
            #expect(swedish.contains("Skicka en kod till mig") && swedish.contains("Email me a link"), "English fills the gaps")
        }
        try Data("{{#unclosed}}".utf8).write(to: directory.appendingPathComponent("login.mustache"))
        #expect(throws: (any Error).self) { try PageTemplates.load(overrides: directory.path) }
    }

    @Test("after a code login: Create a passkey adds one to the account, then passkey sign-in works")
    func passkeyOffer() async throws {
        try await Harness.run { h in
            let (session, offer) = try await Self.codeLogin(h)
            #expect(offer.text.contains("Create a passkey") && offer.text.contains("Not now"))
            let fields = AuthorizeTests.hiddenFields(offer.text)
            let options = try await h.form("/authorize/passkey/enroll/options", fields, headers: [.cookie: session])
            #expect(options.status == .ok)
            let creation = try options.json()["authn_params_public_key"] as? [String: Any]
            #expect((creation?["user"] as? [String: Any])?["name"] as? String == "ana@example.com")
            let device = PasskeyClient(h)
            var enroll = fields
            enroll["auth_session"] = try options.json()["auth_session"] as? String
            enroll["authn_response"] = String(decoding: try device.attest(options), as: UTF8.self)
            let added = try await h.form("/authorize/passkey/enroll", enroll, headers: [.cookie: session])
            #expect(added.status == .ok)
            let user = try #require(try await h.sesame.storage.user(connection: "email", identifier: "ana@example.com"))
            #expect(try await h.sesame.storage.passkeys(userID: user.id).count == 1)
            let challenge = try await device.loginChallenge()
            let login = try await device.finish(challenge, try device.assert(challenge))
            #expect(login.status == .ok, "the new passkey signs in")
            // With a passkey on the account, the next code login goes straight to the application.
            let (_, next) = try await Self.codeLogin(h)
            #expect(next.status == .seeOther)
        }
    }

    /// Attack: a stolen or old session cookie used to add the attacker's passkey to the
    /// victim's account. Only a session that began moments ago (and a page token) may.
    @Test("adding a passkey needs a fresh session and the page's token")
    func enrolmentNeedsFreshSession() async throws {
        try await Harness.run { h in
            let (session, offer) = try await Self.codeLogin(h)
            let fields = AuthorizeTests.hiddenFields(offer.text)
            #expect(try await h.form("/authorize/passkey/enroll/options", fields).status == .forbidden, "no session")
            var forged = fields
            forged["csrf_token"] = nil
            #expect(
                try await h.form("/authorize/passkey/enroll/options", forged, headers: [.cookie: session]).status
                    == .forbidden)
            h.clock.advance(by: 301)
            #expect(
                try await h.form("/authorize/passkey/enroll/options", fields, headers: [.cookie: session]).status
                    == .forbidden, "an old session")
        }
    }

    /// A code login on the page; returns the session cookie and the answer (the offer, or a redirect).
    static func codeLogin(_ h: Harness) async throws -> (cookie: String, response: TestResponse) {
        let fields = try await addressForm(h, username: "ana@example.com")
        var codeFields = AuthorizeTests.hiddenFields(try await h.form("/authorize/start", fields).text)
        codeFields["otp"] = h.code(for: "ana@example.com")
        let response = try await h.form("/authorize/verify", codeFields)
        let cookie = try #require(h.formCookies.values.first { $0.contains("sesame_session=") })
        return (String(cookie.prefix { $0 != ";" }), response)
    }
}
