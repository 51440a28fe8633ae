import Foundation
import HTTPTypes
import HummingbirdTesting
import JWTKit
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

/// Browser sessions of the hosted page: single sign-on, `prompt`, `max_age`, response modes,
/// logout and `/me/sessions`.
@Suite("Browser sessions: single sign-on, silent authentication, logout")
struct BrowserSessionTests {
    static let spa = "https://spa.example.com"
    static let spaID = "app-spa"

    /// A single-page app with its origin as callback, web origin and logout URL.
    /// The SPA signed in on the hosted page, its code exchanged: the session cookie and the
    /// id_token (a logout's `id_token_hint`).
    static func signedInSPA(_ h: Harness) async throws -> (cookie: String, idToken: String) {
        try await seedSPA(h)
        let (cookie, location) = try await signIn(h, authorize(spaID, spa))
        let tokens = try await h.post(
            "/oauth/token",
            [
                "grant_type": "authorization_code", "client_id": spaID, "code": MagicLinkTests.query(location)["code"],
                "redirect_uri": spa, "code_verifier": MagicLinkTests.verifier,
            ]
        ).tokens()
        return (cookie, try #require(tokens.idToken))
    }

    static func seedSPA(_ h: Harness) async throws {
        var app = Application(
            clientID: spaID, clientSecret: nil, name: "Shop", type: .spa, callbacks: [spa, spa + "/"],
            allowedOrigins: [spa], createdAt: Date(timeIntervalSince1970: 0))
        app.logoutURLs = [spa + "/bye"]
        try await h.sesame.storage.createApplication(app)
    }

    static func authorize(_ clientID: String, _ redirect: String, _ extra: [String: String] = [:]) -> String {
        var components = URLComponents(string: "/authorize")!
        var items: [String: String] = [
            "client_id": clientID, "redirect_uri": redirect, "response_type": "code", "scope": "openid email",
            "state": "s-1", "code_challenge": MagicLinkTests.challenge, "code_challenge_method": "S256",
        ]
        items.merge(extra) { $1 }
        components.queryItems = items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string!
    }

    /// Signs in on the page with a code; returns the session cookie the browser keeps.
    static func signIn(_ h: Harness, _ query: String, cookie: String? = nil) async throws -> (cookie: String, location: String) {
        let headers: HTTPFields = cookie.map { [.cookie: $0] } ?? [:]
        var fields = AuthorizeTests.hiddenFields(try await h.get(query, headers: headers).text)
        fields["username"] = "ana@example.com"
        var codeFields = AuthorizeTests.hiddenFields(try await h.form("/authorize/start", fields).text)
        codeFields["otp"] = h.code(for: "ana@example.com")
        let done = try await h.form("/authorize/verify", codeFields, headers: headers)
        let setCookie = try #require(h.formCookies.values.first { $0.contains("sesame_session=") })
        return (String(setCookie.prefix { $0 != ";" }), try await h.finishHosted(done).headers[.location] ?? "")
    }

    @Test("a hosted login sets a __Host- HttpOnly SameSite=Lax cookie; another application then gets a code without asking")
    func singleSignOn() async throws {
        try await Harness.run { h in
            try await Self.seedSPA(h)
            let (cookie, _) = try await Self.signIn(h, Self.authorize(h.clientID, AuthorizeTests.callback))
            #expect(cookie.hasPrefix("__Host-sesame_session="))
            let second = try await h.get(Self.authorize(Self.spaID, Self.spa), headers: [.cookie: cookie])
            #expect(second.status == .seeOther)
            let query = MagicLinkTests.query(second.headers[.location])
            #expect(second.headers[.location]?.hasPrefix(Self.spa + "?") == true && query["state"] == "s-1")
            let tokens = try await h.post(
                "/oauth/token",
                [
                    "grant_type": "authorization_code", "client_id": Self.spaID, "code": query["code"], "redirect_uri": Self.spa,
                    "code_verifier": MagicLinkTests.verifier,
                ]
            ).tokens()
            #expect(tokens.idToken != nil)
        }
    }

    @Test("the cookie's attributes")
    func cookieAttributes() async throws {
        try await Harness.run { h in
            var fields = AuthorizeTests.hiddenFields(try await h.get(Self.authorize(h.clientID, AuthorizeTests.callback)).text)
            fields["username"] = "ana@example.com"
            var codeFields = AuthorizeTests.hiddenFields(try await h.form("/authorize/start", fields).text)
            codeFields["otp"] = h.code(for: "ana@example.com")
            _ = try await h.form("/authorize/verify", codeFields)
            let header = try #require(h.formCookies.values.first { $0.contains("sesame_session=") })
            for attribute in ["Path=/", "HttpOnly", "SameSite=Lax", "Secure", "Max-Age=604800"] {
                #expect(header.contains(attribute), "\(attribute) in \(header)")
            }
            #expect(!header.contains("Domain="), "a __Host- cookie names no domain")
        }
    }

    @Test("prompt=none: a code with a session, login_required without one, in the response mode asked for")
    func promptNone() async throws {
        try await Harness.run { h in
            try await Self.seedSPA(h)
            let silent = Self.authorize(Self.spaID, Self.spa, ["prompt": "none"])
            let none = try await h.get(silent)
            #expect(none.status == .seeOther)
            let refused = MagicLinkTests.query(none.headers[.location])
            #expect(refused["error"] == "login_required" && refused["state"] == "s-1")
            let (cookie, _) = try await Self.signIn(h, Self.authorize(h.clientID, AuthorizeTests.callback))
            let answered = try await h.get(silent, headers: [.cookie: cookie])
            #expect(MagicLinkTests.query(answered.headers[.location])["code"] != nil)
        }
    }

    @Test("prompt=login shows the page despite a session; max_age older than the login does too, or login_required")
    func promptLoginAndMaxAge() async throws {
        try await Harness.run { h in
            let (cookie, _) = try await Self.signIn(h, Self.authorize(h.clientID, AuthorizeTests.callback))
            let login = try await h.get(
                Self.authorize(h.clientID, AuthorizeTests.callback, ["prompt": "login"]), headers: [.cookie: cookie])
            #expect(login.status == .ok && login.text.contains("/authorize/start"))
            h.clock.advance(by: 120)
            let old = try await h.get(
                Self.authorize(h.clientID, AuthorizeTests.callback, ["max_age": "60"]), headers: [.cookie: cookie])
            #expect(old.status == .ok && old.text.contains("/authorize/start"))
            let silentOld = try await h.get(
                Self.authorize(h.clientID, AuthorizeTests.callback, ["max_age": "60", "prompt": "none"]),
                headers: [.cookie: cookie])
            #expect(MagicLinkTests.query(silentOld.headers[.location])["error"] == "login_required")
            let recent = try await h.get(
                Self.authorize(h.clientID, AuthorizeTests.callback, ["max_age": "600"]), headers: [.cookie: cookie])
            let code = try #require(MagicLinkTests.query(recent.headers[.location])["code"])
            let tokens = try await h.post(
                "/oauth/token",
                [
                    "grant_type": "authorization_code", "client_id": h.clientID, "code": code,
                    "redirect_uri": AuthorizeTests.callback, "code_verifier": MagicLinkTests.verifier,
                ]
            ).tokens()
            let idToken = try #require(tokens.idToken)
            let claims = try #require(WelcomeClaims.of(idToken))
            let authTime = try #require(claims["auth_time"] as? Int)
            #expect(Int(h.clock.now().timeIntervalSince1970) - authTime == 120, "auth_time is the session's login, not now")
        }
    }

    /// Auth0's SPA SDK: a hidden iframe loads /authorize with prompt=none and
    /// response_mode=web_message and listens for the message.
    @Test("web_message: a page that posts the answer to its parent at the app's origin, framable only by it")
    func webMessage() async throws {
        try await Harness.run { h in
            try await Self.seedSPA(h)
            let (cookie, _) = try await Self.signIn(h, Self.authorize(h.clientID, AuthorizeTests.callback))
            let page = try await h.get(
                Self.authorize(Self.spaID, Self.spa, ["prompt": "none", "response_mode": "web_message"]),
                headers: [.cookie: cookie])
            #expect(page.status == .ok)
            #expect(page.text.contains("\"type\":\"authorization_response\"") && page.text.contains("\"code\":"))
            #expect(page.text.contains("postMessage(") && page.text.contains("\"https://spa.example.com\")"))
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(policy.contains("frame-ancestors https://spa.example.com") && policy.contains("script-src 'sha256-"))
            #expect(!policy.contains("unsafe-inline'; ") || !policy.contains("script-src 'unsafe-inline"))
            #expect(page.headers[HTTPField.Name("X-Frame-Options")!] == nil)

            let noSession = try await h.get(
                Self.authorize(Self.spaID, Self.spa, ["prompt": "none", "response_mode": "web_message"]))
            #expect(noSession.text.contains("\"error\":\"login_required\""))
            #expect(!noSession.text.contains("sessionStorage"), "an error carries no code: posted as often as shown")

            // In the login's language; a second showing in the tab posts no spent code again.
            let japanese = try await h.get(
                Self.authorize(Self.spaID, Self.spa, ["prompt": "none", "response_mode": "web_message", "ui_locales": "ja"]),
                headers: [.cookie: cookie])
            #expect(japanese.text.contains("<html lang=\"ja\" dir=\"ltr\">") && japanese.text.contains("サインインしています…"))
            #expect(japanese.text.contains("sessionStorage.getItem(\"sesame_answered https://spa.example.com s-1\")"))
        }
    }

    /// Attack: a page on another origin frames /authorize with web_message to receive codes.
    @Test("web_message to a callback whose origin is not an allowed web origin is refused with a page, no message")
    func webMessageOrigin() async throws {
        try await Harness.run { h in
            let refused = try await h.get(
                Self.authorize(h.clientID, AuthorizeTests.callback, ["prompt": "none", "response_mode": "web_message"]))
            #expect(refused.status == .badRequest && !refused.text.contains("postMessage"))
        }
    }

    @Test("form_post and fragment")
    func otherModes() async throws {
        try await Harness.run { h in
            let (cookie, _) = try await Self.signIn(h, Self.authorize(h.clientID, AuthorizeTests.callback))
            let post = try await h.get(
                Self.authorize(h.clientID, AuthorizeTests.callback, ["response_mode": "form_post"]), headers: [.cookie: cookie])
            #expect(post.text.contains("<form method=\"post\" action=\"http://localhost:3000/callback\">"))
            #expect(post.text.contains("name=\"code\"") && post.text.contains("name=\"state\" value=\"s-1\""))
            let fragment = try await h.get(
                Self.authorize(h.clientID, AuthorizeTests.callback, ["response_mode": "fragment"]), headers: [.cookie: cookie])
            #expect(fragment.headers[.location]?.hasPrefix(AuthorizeTests.callback + "#code=") == true)
            let bad = try await h.get(Self.authorize(h.clientID, AuthorizeTests.callback, ["response_mode": "jsonp"]))
            #expect(bad.status == .badRequest)
        }
    }

    @Test("the form_post page speaks the login's language, right to left in Arabic, and posts once per state")
    func formPostLanguage() async throws {
        try await Harness.run { h in
            let (cookie, _) = try await Self.signIn(h, Self.authorize(h.clientID, AuthorizeTests.callback))
            let arabic = try await h.get(
                Self.authorize(h.clientID, AuthorizeTests.callback, ["response_mode": "form_post", "ui_locales": "ar"]),
                headers: [.cookie: cookie])
            #expect(arabic.text.contains("<html lang=\"ar\" dir=\"rtl\">"))
            #expect(arabic.text.contains("<title>جارٍ تسجيل الدخول</title>") && arabic.text.contains("تابع يدويًا"))
            #expect(!arabic.text.contains("Signing in") && !arabic.text.contains("Scripts are off"))
            #expect(arabic.text.contains("sessionStorage") && arabic.text.contains("href=\"http://localhost:3000/\""))
            let french = try await h.get(
                Self.authorize(h.clientID, AuthorizeTests.callback, ["response_mode": "form_post"]),
                headers: [.cookie: cookie, .acceptLanguage: "fr-CA, en;q=0.5"])
            #expect(french.text.contains("<html lang=\"fr\" dir=\"ltr\">") && french.text.contains("Continuer vers localhost"))
            // One script, the same on every answer, so its hash in the policy never varies.
            let policies = [arabic, french].compactMap { $0.headers[.contentSecurityPolicy] }
            #expect(policies.count == 2 && policies[0] == policies[1])
        }
    }

    @Test("/v2/logout ends the session and returns only to an allowed logout URL")
    func auth0Logout() async throws {
        try await Harness.run { h in
            try await Self.seedSPA(h)
            let (cookie, _) = try await Self.signIn(h, Self.authorize(h.clientID, AuthorizeTests.callback))
            let out = try await h.get(
                "/v2/logout?client_id=\(Self.spaID)&returnTo=https%3A%2F%2Fspa.example.com%2Fbye", headers: [.cookie: cookie])
            #expect(out.status == .seeOther && out.headers[.location] == Self.spa + "/bye")
            #expect(out.headers[.setCookie]?.contains("Max-Age=0") == true)
            let after = try await h.get(Self.authorize(Self.spaID, Self.spa, ["prompt": "none"]), headers: [.cookie: cookie])
            #expect(MagicLinkTests.query(after.headers[.location])["error"] == "login_required", "the old cookie is dead")
        }
    }

    /// Attack: an open redirect on the login domain (`/v2/logout?returnTo=https://evil…`).
    @Test("a returnTo that is not an allowed logout URL shows an error page, never a redirect, and still logs out")
    func logoutOpenRedirect() async throws {
        try await Harness.run { h in
            try await Self.seedSPA(h)
            let (cookie, _) = try await Self.signIn(h, Self.authorize(h.clientID, AuthorizeTests.callback))
            for query in ["client_id=\(Self.spaID)&returnTo=https%3A%2F%2Fevil.example", "returnTo=https%3A%2F%2Fevil.example"] {
                // Not an application's own logout: the person is asked first (crossSiteLogout).
                let asked = try await h.get("/v2/logout?" + query, headers: [.cookie: cookie])
                #expect(asked.status == .ok && asked.headers[.location] == nil)
                let out = try await h.form("/v2/logout", AuthorizeTests.hiddenFields(asked.text), headers: [.cookie: cookie])
                #expect(out.status == .badRequest && out.headers[.location] == nil)
            }
            let direct = try await h.get("/v2/logout?returnTo=https%3A%2F%2Fevil.example")
            #expect(direct.status == .badRequest && direct.headers[.location] == nil, "without a session: refused at once")
            let after = try await h.get(Self.authorize(Self.spaID, Self.spa, ["prompt": "none"]), headers: [.cookie: cookie])
            #expect(MagicLinkTests.query(after.headers[.location])["error"] == "login_required")
        }
    }

    /// Attack: an application's allowed logout URL is `javascript:…` or `data:…` (set through
    /// the management API or `sesame admin apps`); `/v2/logout?returnTo=` that URL then runs the
    /// attacker's script on the login domain.
    @Test("logout XSS: javascript: and data: logout URLs are refused, and never followed from an old row")
    func scriptLogoutURLs() async throws {
        try await Harness.run { h in
            let admin = try await ManagementAPITests.token(h)
            for url in [
                "javascript:alert(document.cookie)", "data:text/html,<script>alert(1)</script>", "http://evil.example/bye",
            ] {
                let created = try await h.post(
                    "/api/v2/clients",
                    ["name": "X", "app_type": "spa", "callbacks": [Self.spa], "allowed_logout_urls": [url]], headers: admin)
                #expect(created.status == .badRequest, "\(url)")
                let patched = try await h.patch("/api/v2/clients/\(h.clientID)", ["allowed_logout_urls": [url]], headers: admin)
                #expect(patched.status == .badRequest, "\(url)")
            }
            try await Self.seedSPA(h)
            // A row stored before the rule: the logout still never redirects there.
            _ = try await h.sesame.storage.updateApplication(clientID: Self.spaID) { $0.logoutURLs = ["javascript:alert(1)"] }
            let out = try await h.get("/v2/logout?client_id=\(Self.spaID)&returnTo=javascript%3Aalert(1)")
            #expect(out.status == .badRequest && out.headers[.location] == nil)
        }
    }

    @Test("OIDC end-session: id_token_hint names the application; state comes back; a forged hint is refused")
    func oidcLogout() async throws {
        try await Harness.run { h in
            let (cookie, hint) = try await Self.signedInSPA(h)
            let out = try await h.form(
                "/oidc/logout", ["id_token_hint": hint, "post_logout_redirect_uri": Self.spa + "/bye", "state": "z"],
                headers: [.cookie: cookie])
            #expect(out.headers[.location] == Self.spa + "/bye?state=z")
            let forged = try await h.form(
                "/oidc/logout", ["id_token_hint": hint.dropLast(4) + "AAAA", "post_logout_redirect_uri": Self.spa + "/bye"])
            #expect(forged.status == .badRequest && forged.headers[.location] == nil)
        }
    }

    /// Attack: a page on another site links, redirects or frames `/v2/logout` (or the OIDC
    /// end-session endpoint): the SameSite=Lax session cookie goes along on a top-level GET,
    /// and the person is signed out of every application without asking.
    @Test("cross-site logout: without proof of an application, logout asks first and a forged POST ends nothing")
    func crossSiteLogout() async throws {
        try await Harness.run { h in
            try await Self.seedSPA(h)
            let (cookie, _) = try await Self.signIn(h, Self.authorize(h.clientID, AuthorizeTests.callback))
            let bye = "https%3A%2F%2Fspa.example.com%2Fbye"
            for path in [
                "/v2/logout", "/v2/logout?returnTo=\(bye)",
                "/v2/logout?client_id=\(Self.spaID)&returnTo=https%3A%2F%2Fevil.example",
                "/oidc/logout", "/oidc/logout?post_logout_redirect_uri=\(bye)&state=q",
            ] {
                let asked = try await h.get(path, headers: [.cookie: cookie])
                #expect(asked.status == .ok && asked.text.contains("id=\"logout-confirm\""), "\(path)")
                #expect(!asked.headers[values: .setCookie].contains { $0.contains("sesame_session=") }, "\(path)")
            }
            // Another site's form posting to the endpoints carries no forgery token of this browser.
            for path in ["/v2/logout", "/oidc/logout"] {
                let forged = try await h.form(path, ["csrf_token": "guessed"], headers: [.cookie: cookie])
                #expect(forged.text.contains("id=\"logout-confirm\""), "\(path)")
            }
            let still = try await h.get(Self.authorize(Self.spaID, Self.spa, ["prompt": "none"]), headers: [.cookie: cookie])
            #expect(MagicLinkTests.query(still.headers[.location])["code"] != nil, "still signed in")

            // The person confirms on the page: signed out, and sent where the link said.
            let page = try await h.get("/oidc/logout?post_logout_redirect_uri=\(bye)&state=q", headers: [.cookie: cookie])
            #expect(page.text.contains("action=\"/oidc/logout\""))
            let confirmed = try await h.form("/oidc/logout", AuthorizeTests.hiddenFields(page.text), headers: [.cookie: cookie])
            #expect(confirmed.status == .seeOther && confirmed.headers[.location] == Self.spa + "/bye?state=q")
            let after = try await h.get(Self.authorize(Self.spaID, Self.spa, ["prompt": "none"]), headers: [.cookie: cookie])
            #expect(MagicLinkTests.query(after.headers[.location])["error"] == "login_required")
        }
    }

    @Test("logout: the confirm button of /v2/logout signs out and shows signed out")
    func confirmedAuth0Logout() async throws {
        try await Harness.run { h in
            let (cookie, _) = try await Self.signIn(h, Self.authorize(h.clientID, AuthorizeTests.callback))
            let page = try await h.get("/v2/logout", headers: [.cookie: cookie])
            #expect(page.text.contains("action=\"/v2/logout\""))
            let confirmed = try await h.form("/v2/logout", AuthorizeTests.hiddenFields(page.text), headers: [.cookie: cookie])
            #expect(confirmed.status == .ok && confirmed.text.contains("You are signed out"))
            #expect(confirmed.headers[values: .setCookie].contains { $0.contains("sesame_session=") && $0.contains("Max-Age=0") })
            let nobody = try await h.get("/v2/logout")
            #expect(nobody.text.contains("You are signed out"), "without a session there is nothing to ask about")
        }
    }

    /// An id_token of ours, even long expired, shows that the application sent the logout.
    /// One signed by our key for another issuer does not.
    @Test("logout with a valid id_token_hint (expired too) needs no confirmation; another issuer's does")
    func logoutWithHint() async throws {
        try await Harness.run { h in
            let (cookie, hint) = try await Self.signedInSPA(h)
            let foreign = try await h.sesame.keys.signer().sign(
                ForeignHint(iss: "https://other.example.com", aud: Self.spaID))
            let refused = try await h.get("/v2/logout?id_token_hint=\(foreign)", headers: [.cookie: cookie])
            #expect(refused.text.contains("id=\"logout-confirm\""), "another issuer's token proves nothing")
            h.clock.advance(by: 40_000)  // past the id_token's lifetime
            let out = try await h.get("/v2/logout?id_token_hint=\(hint)", headers: [.cookie: cookie])
            #expect(out.status == .ok && out.text.contains("You are signed out"))
            let after = try await h.get(Self.authorize(Self.spaID, Self.spa, ["prompt": "none"]), headers: [.cookie: cookie])
            #expect(MagicLinkTests.query(after.headers[.location])["error"] == "login_required")
        }
    }

    /// Attack: the `/welcome` state cookie (state and PKCE verifier) without Secure travels over
    /// plain http, where a network attacker reads it; without `__Host-` a sibling subdomain can
    /// plant its own.
    @Test("welcome cookie: __Host- and Secure on an https issuer; a sign-in begun under the old name still finishes")
    func welcomeCookie() async throws {
        try await Harness.run { h in
            let start = try await h.get("/welcome/start")
            let setting = try #require(start.headers[.setCookie])
            let attributes = setting.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(setting.hasPrefix("__Host-sesame_welcome="))
            #expect(attributes.contains("Secure") && attributes.contains("Path=/") && attributes.contains("HttpOnly"))
            #expect(!attributes.contains { $0.hasPrefix("Domain") })
            // Begun before the upgrade: the same state under the old name.
            let value = String(setting.prefix { $0 != ";" }.dropFirst("__Host-sesame_welcome=".count))
            let location = try #require(start.headers[.location])
            let (_, back) = try await Self.signIn(h, String(location.dropFirst("https://login.example.com".count)))
            let callback = String(back.dropFirst("https://login.example.com".count))
            let page = try await h.get(callback, headers: [.cookie: "sesame_welcome=\(value)"])
            #expect(page.status == .ok && page.text.contains("Signed in as <strong>ana@example.com</strong>"))
        }
    }

    /// Attack: session fixation. A secret planted in the victim's browser before they sign
    /// in must not become their session.
    @Test("every login rotates the session secret; a planted or revoked one gives nothing")
    func fixation() async throws {
        try await Harness.run { h in
            let planted = "__Host-sesame_session=planted-by-attacker"
            let (cookie, _) = try await Self.signIn(h, Self.authorize(h.clientID, AuthorizeTests.callback), cookie: planted)
            #expect(cookie != planted)
            let silent = Self.authorize(h.clientID, AuthorizeTests.callback, ["prompt": "none"])
            #expect(
                MagicLinkTests.query(try await h.get(silent, headers: [.cookie: planted]).headers[.location])["error"]
                    == "login_required")
            let (second, _) = try await Self.signIn(
                h, Self.authorize(h.clientID, AuthorizeTests.callback, ["prompt": "login"]), cookie: cookie)
            #expect(second != cookie)
            #expect(
                MagicLinkTests.query(try await h.get(silent, headers: [.cookie: cookie]).headers[.location])["error"]
                    == "login_required", "the replaced session is revoked")
        }
    }

    @Test("sessions end: idle lifetime, blocking the user")
    func sessionEnds() async throws {
        try await Harness.run { h in
            let silent = Self.authorize(h.clientID, AuthorizeTests.callback, ["prompt": "none"])
            let (cookie, _) = try await Self.signIn(h, Self.authorize(h.clientID, AuthorizeTests.callback))
            h.clock.advance(by: 3 * 86400 + 1)
            #expect(
                MagicLinkTests.query(try await h.get(silent, headers: [.cookie: cookie]).headers[.location])["error"]
                    == "login_required")
            let (fresh, _) = try await Self.signIn(h, Self.authorize(h.clientID, AuthorizeTests.callback))
            let user = try #require(try await h.sesame.storage.listUsers(limit: 1, offset: 0).first)
            try await UserAdministration(storage: h.sesame.storage, clock: h.clock).block(user.userID)
            #expect(try await h.sesame.storage.browserSessions(userID: user.userID, at: h.clock.now()).isEmpty)
            #expect(
                MagicLinkTests.query(try await h.get(silent, headers: [.cookie: fresh]).headers[.location])["error"]
                    == "login_required")
        }
    }

    @Test("/me/sessions lists the owner's sessions and ends one or all; another person's is not found")
    func meSessions() async throws {
        try await Harness.run { h in
            let (cookie, location) = try await Self.signIn(
                h, Self.authorize(h.clientID, AuthorizeTests.callback, ["scope": "openid read:me:sessions delete:me:sessions"]))
            let tokens = try await h.post(
                "/oauth/token",
                [
                    "grant_type": "authorization_code", "client_id": h.clientID, "code": MagicLinkTests.query(location)["code"],
                    "redirect_uri": AuthorizeTests.callback, "code_verifier": MagicLinkTests.verifier,
                ]
            ).tokens()
            let bearer: HTTPFields = [.authorization: "Bearer \(tokens.accessToken)", .cookie: cookie]
            let list = try JSONDecoder().decode(
                [SessionBody].self, from: Data(try await h.get("/me/sessions", headers: bearer).text.utf8))
            #expect(list.count == 1 && list[0].current == true && list[0].methods == ["hosted_otp"])
            #expect(try await h.delete("/me/sessions/nope", headers: bearer).status == .notFound)
            #expect(try await h.delete("/me/sessions/\(list[0].id)", headers: bearer).status == .noContent)
            let after = try JSONDecoder().decode(
                [SessionBody].self, from: Data(try await h.get("/me/sessions", headers: bearer).text.utf8))
            #expect(after.isEmpty)
            let unscoped = try await h.login(email: "ana@example.com", scope: "openid")
            #expect(
                try await h.get("/me/sessions", headers: [.authorization: "Bearer \(unscoped.accessToken)"]).status == .forbidden)
        }
    }

    @Test("discovery lists every response mode, prompt value and the end-session endpoint")
    func discovery() async throws {
        try await Harness.run { h in
            let text = try await h.get("/.well-known/openid-configuration").text
            let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(document["response_modes_supported"] as? [String] == ["query", "fragment", "form_post", "web_message"])
            #expect(document["prompt_values_supported"] as? [String] == ["consent", "create", "login", "none", "select_account"])
            #expect(document["end_session_endpoint"] as? String == "https://login.example.com/oidc/logout")
        }
    }

    @Test("/welcome: a fresh install's first sign-in ends on a page that shows who signed in")
    func welcome() async throws {
        try await Harness.run { h in
            let start = try await h.get("/welcome/start")
            let location = try #require(start.headers[.location])
            let welcomeCookie = String(try #require(start.headers[.setCookie]).prefix { $0 != ";" })
            let path = String(location.dropFirst("https://login.example.com".count))
            let (_, back) = try await Self.signIn(h, path)
            let callback = String(back.dropFirst("https://login.example.com".count))
            let page = try await h.get(callback, headers: [.cookie: welcomeCookie])
            #expect(page.status == .ok && page.text.contains("Signed in as <strong>ana@example.com</strong>"))
            #expect(page.text.contains("auth_time") && page.text.contains("v2/logout"))
            let stranger = try await h.get(callback)
            #expect(stranger.status == .badRequest, "a callback this browser did not start is refused")
        }
    }
}

/// An id_token signed by our key but naming another issuer.
struct ForeignHint: JWTPayload {
    let iss: String
    let aud: String

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The payload of a JWT, for checking claims.
enum WelcomeClaims {
    static func of(_ jwt: String) -> [String: Any]? {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3, let bytes = Base64URL.decodeTolerant(String(parts[1])) else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    }
}
