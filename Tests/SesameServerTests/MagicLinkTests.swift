import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import SesameWebAuthn
import Testing

@Suite("Magic links: /passwordless/verify_redirect and the code exchange")
struct MagicLinkTests {
    static let callback = "http://localhost:3000/callback"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-extra-entropy"
    static var challenge: String { Base64URL.encode(SHA256.hash(data: Data(verifier.utf8))) }

    /// Starts a link login and returns the link's path and query.
    func sendLink(_ h: Harness, email: String = "ana@example.com") async throws -> String {
        let response = try await h.post(
            "/passwordless/start",
            [
                "client_id": h.clientID, "connection": "email", "email": email, "send": "link",
                "authParams": [
                    "redirect_uri": Self.callback, "state": "xyz 123", "scope": "openid email", "nonce": "n1",
                    "response_type": "code", "code_challenge": Self.challenge, "code_challenge_method": "S256",
                ],
            ])
        #expect(response.status == .ok)
        let link = try #require(h.sender.sent(to: email).last?.link)
        #expect(link.hasPrefix("https://login.example.com/passwordless/verify_redirect?"))
        return String(link.dropFirst("https://login.example.com".count))
    }

    /// Opens the link and submits the confirm page's form, as the browser does after the click.
    func confirm(_ h: Harness, _ path: String) async throws -> TestResponse {
        let query = URLComponents(string: path)!.queryItems!
        var fields = Dictionary(uniqueKeysWithValues: query.map { ($0.name, $0.value ?? "") })
        fields["csrf_token"] = AuthorizeTests.hiddenFields(try await h.get(path).text)["csrf_token"]
        return try await h.form("/passwordless/verify_redirect", fields)
    }

    func exchange(_ h: Harness, code: String, verifier: String = Self.verifier) async throws -> TestResponse {
        try await h.post(
            "/oauth/token",
            [
                "grant_type": "authorization_code", "client_id": h.clientID, "code": code, "redirect_uri": Self.callback,
                "code_verifier": verifier,
            ])
    }

    static func query(_ location: String?) -> [String: String] {
        let items = URLComponents(string: location ?? "")?.queryItems ?? []
        return Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
    }

    @Test("click, redirect with a code and state, exchange with PKCE")
    func fullFlow() async throws {
        try await Harness.run { h in
            let path = try await sendLink(h)
            let redirect = try await confirm(h, path)
            #expect(redirect.status == .seeOther)
            let location = try #require(redirect.headers[.location])
            #expect(location.hasPrefix(Self.callback + "?"))
            let query = Self.query(location)
            #expect(query["state"] == "xyz 123")
            let tokens = try await exchange(h, code: try #require(query["code"])).tokens()
            #expect(tokens.idToken != nil && tokens.scope == "openid email")
        }
    }

    /// Attack (and accident): mail scanners that fetch every link must not burn it.
    @Test("GET shows a confirm page and consumes nothing")
    func getDoesNotConsume() async throws {
        try await Harness.run { h in
            let path = try await sendLink(h)
            for _ in 0..<3 {
                let page = try await h.get(path)
                #expect(page.status == .ok)
                #expect(page.text.contains("<form method=\"post\" action=\"/passwordless/verify_redirect\">"))
                #expect(page.header("X-Frame-Options") == "DENY" && page.header("Referrer-Policy") == "no-referrer")
            }
            #expect(try await confirm(h, path).status == .seeOther)
            #expect(Self.query(try await confirm(h, path).headers[.location])["error"] == "access_denied", "single use")
        }
    }

    @Test("an expired link redirects with access_denied and the state")
    func expired() async throws {
        try await Harness.run { h in
            let path = try await sendLink(h)
            h.clock.advance(by: 15 * 60 + 1)
            let query = Self.query(try await confirm(h, path).headers[.location])
            #expect(query["error"] == "access_denied" && query["state"] == "xyz 123")
            #expect(query["error_description"] == "Wrong email or verification code.")
        }
    }

    /// Attack: open redirect. A callback the application did not register is never followed.
    @Test("a callback the application does not allow gets an error page, not a redirect")
    func foreignCallback() async throws {
        try await Harness.run { h in
            let path = try await sendLink(h).replacingOccurrences(of: Self.callback, with: "https://evil.example/steal")
            #expect(path.contains("evil.example"))
            let page = try await h.get(path)
            #expect(page.status == .badRequest && page.text.contains("does not allow signing in to return to this address"))
            let post = try await confirm(h, path)
            #expect(post.status == .badRequest && post.headers[.location] == nil)
        }
    }

    /// Attack: an intercepted authorization code. Without the PKCE verifier it is useless,
    /// and it is spent by the failed attempt.
    @Test("PKCE: a wrong verifier fails and the code cannot be retried")
    func pkce() async throws {
        try await Harness.run { h in
            let code = try #require(Self.query(try await confirm(h, try await sendLink(h)).headers[.location])["code"])
            let wrong = try await exchange(h, code: code, verifier: String(repeating: "a", count: 43))
            #expect(wrong.status == .forbidden && wrong.error?.errorDescription == "Failed to verify code verifier")
            #expect(try await exchange(h, code: code).error?.errorDescription == "Invalid authorization code")
        }
    }

    @Test("authorization codes are single use")
    func codeReuse() async throws {
        try await Harness.run { h in
            let code = try #require(Self.query(try await confirm(h, try await sendLink(h)).headers[.location])["code"])
            #expect(try await exchange(h, code: code).status == .ok)
            #expect(
                try await exchange(h, code: code).error
                    == ErrorBody(error: "invalid_grant", errorDescription: "Invalid authorization code"))
        }
    }

    @Test("native links: link_ios builds a universal link whose code the OTP grant accepts")
    func nativeLink() async throws {
        try await Harness.run { h in
            _ = try await h.sesame.storage.updateApplication(clientID: h.clientID) { $0.iosBundleIDs = ["com.example.app"] }
            _ = try await h.start(email: "ana@example.com", send: "link_ios")
            let link = try #require(h.sender.sent(to: "ana@example.com").last?.link)
            #expect(link.hasPrefix("https://login.example.com/ios/com.example.app/email?code="))
            let page = try await h.get(String(link.dropFirst("https://login.example.com".count)))
            #expect(page.status == .ok, "opened in a browser, the link explains itself")
            let code = String(link.split(separator: "=", maxSplits: 1)[1])
            #expect(try await h.otp("ana@example.com", code).status == .ok)
        }
    }
}
