import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import Testing

@Suite("Hosted login page: /authorize")
struct AuthorizeTests {
    static let callback = "http://localhost:3000/callback"

    func authorizeQuery(_ h: Harness, responseType: String = "code", redirect: String = Self.callback) -> String {
        var components = URLComponents(string: "/authorize")!
        components.queryItems = [
            .init(name: "client_id", value: h.clientID), .init(name: "redirect_uri", value: redirect),
            .init(name: "response_type", value: responseType), .init(name: "scope", value: "openid email"),
            .init(name: "state", value: "s-1"), .init(name: "nonce", value: "n-1"),
            .init(name: "code_challenge", value: MagicLinkTests.challenge),
            .init(name: "code_challenge_method", value: "S256"),
        ]
        return components.string!
    }

    /// The hidden fields of a rendered form, as the browser would submit them.
    static func hiddenFields(_ html: String) -> [String: String] {
        var fields: [String: String] = [:]
        for part in html.components(separatedBy: "<input type=\"hidden\" name=\"").dropFirst() {
            let name = String(part.prefix { $0 != "\"" })
            guard let range = part.range(of: "value=\"") else { continue }
            fields[name] = String(part[range.upperBound...].prefix { $0 != "\"" })
                .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
        }
        return fields
    }

    @Test("address, code, redirect with a code, PKCE exchange")
    func fullFlow() async throws {
        try await Harness.run { h in
            let page = try await h.get(authorizeQuery(h))
            #expect(page.status == .ok && page.text.contains("action=\"/authorize/start\""))
            var fields = Self.hiddenFields(page.text)
            fields["username"] = "ana@example.com"
            let codePage = try await h.form("/authorize/start", fields)
            #expect(codePage.status == .ok && codePage.text.contains("action=\"/authorize/verify\""))
            var codeFields = Self.hiddenFields(codePage.text)
            let otp: String = try #require(h.code(for: "ana@example.com"))
            codeFields["otp"] = otp
            let offer = try await h.form("/authorize/verify", codeFields)
            #expect(offer.text.contains("Create a passkey") && offer.text.contains("Not now"), "the passkey offer")
            let redirect = try await h.finishHosted(offer)
            #expect(redirect.status == .seeOther)
            let query = MagicLinkTests.query(redirect.headers[.location])
            #expect(query["state"] == "s-1")
            let tokens = try await h.post(
                "/oauth/token",
                [
                    "grant_type": "authorization_code", "client_id": h.clientID, "code": query["code"],
                    "redirect_uri": Self.callback, "code_verifier": MagicLinkTests.verifier,
                ]
            ).tokens()
            #expect(tokens.idToken != nil && tokens.scope == "openid email")
        }
    }

    @Test("a wrong code shows the form again and counts an attempt")
    func wrongCode() async throws {
        try await Harness.run { h in
            var fields = Self.hiddenFields(try await h.get(authorizeQuery(h)).text)
            fields["username"] = "+15551234567"
            var codeFields = Self.hiddenFields(try await h.form("/authorize/start", fields).text)
            codeFields["otp"] = "not-the-code"
            for _ in 0..<3 {
                let again = try await h.form("/authorize/verify", codeFields)
                #expect(again.status == .badRequest && again.text.contains("role=\"alert\""))
            }
            codeFields["otp"] = h.code(for: "+15551234567")
            #expect(try await h.form("/authorize/verify", codeFields).status == .badRequest, "the code died after 3 misses")
        }
    }

    @Test("bad requests: unknown callback is a page, unsupported response type is a redirect")
    func badRequests() async throws {
        try await Harness.run { h in
            let foreign = try await h.get(authorizeQuery(h, redirect: "https://evil.example/cb"))
            #expect(foreign.status == .badRequest && foreign.headers[.location] == nil)
            let implicit = try await h.get(authorizeQuery(h, responseType: "token"))
            #expect(implicit.status == .seeOther)
            #expect(MagicLinkTests.query(implicit.headers[.location])["error"] == "unsupported_response_type")
            var fields = Self.hiddenFields(try await h.get(authorizeQuery(h)).text)
            fields["username"] = "not an address"
            let invalid = try await h.form("/authorize/start", fields)
            #expect(invalid.status == .badRequest && invalid.text.contains("Enter a valid email address"))
        }
    }

    @Test("the page offers passkeys: a posted assertion redirects with a code for the passkey's owner")
    func passkeyFlow() async throws {
        try await Harness.run { h in
            let device = PasskeyClient(h)
            let signup = try await device.signUp(email: "kim@example.com")
            let page = try await h.get(authorizeQuery(h))
            #expect(page.text.contains("autocomplete=\"email webauthn\"") && page.text.contains("/assets/passkey.js"))
            #expect(page.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
            #expect(try await h.get("/assets/passkey.js").text.contains("/passkey/challenge"))
            #expect(try await h.get("/authorize/passkey.js").text.contains("/passkey/challenge"), "the old address")
            var fields = Self.hiddenFields(page.text)
            let challenge = try await device.loginChallenge()
            fields["auth_session"] = try challenge.json()["auth_session"] as? String
            fields["authn_response"] = String(decoding: try device.assert(challenge), as: UTF8.self)
            let redirect = try await h.form("/authorize/passkey", fields)
            #expect(redirect.status == .seeOther)
            let query = MagicLinkTests.query(redirect.headers[.location])
            #expect(query["state"] == "s-1")
            let tokens = try await h.post(
                "/oauth/token",
                [
                    "grant_type": GrantType.authorizationCode, "client_id": h.clientID, "code": query["code"],
                    "redirect_uri": Self.callback, "code_verifier": MagicLinkTests.verifier,
                ]
            ).decode(TokenBody.self)
            #expect(
                try PasskeyTests.claims(tokens.idToken)["sub"] as? String == PasskeyTests.claims(signup.idToken)["sub"] as? String
            )
        }
    }

    /// Attack: replaying a captured assertion (or a forged one) on the hosted page.
    @Test("a replayed or forged passkey answer shows the form again with the reason, and no code")
    func passkeyRefusals() async throws {
        try await Harness.run { h in
            let device = PasskeyClient(h)
            _ = try await device.signUp(email: "kim@example.com")
            var fields = Self.hiddenFields(try await h.get(authorizeQuery(h)).text)
            let challenge = try await device.loginChallenge()
            fields["auth_session"] = try challenge.json()["auth_session"] as? String
            fields["authn_response"] = String(decoding: try device.assert(challenge), as: UTF8.self)
            #expect(try await h.form("/authorize/passkey", fields).status == .seeOther)
            let replay = try await h.form("/authorize/passkey", fields)
            #expect(replay.status == .badRequest && replay.text.contains("That passkey could not sign you in"))
            #expect(replay.headers[.location] == nil)
            fields["authn_response"] = "{not json"
            #expect(try await h.form("/authorize/passkey", fields).status == .badRequest)
        }
    }

    @Test("an application without passkey sign-in gets a page without the script")
    func noPasskeys() async throws {
        try await Harness.run { h in
            _ = try await h.sesame.storage.updateApplication(clientID: h.clientID) {
                $0.grantTypes.removeAll { $0 == GrantType.webauthn }
            }
            let page = try await h.get(authorizeQuery(h))
            #expect(page.status == .ok && !page.text.contains("passkey.js"))
            #expect(page.header("Content-Security-Policy")?.contains("script-src") == false)
        }
    }
}
