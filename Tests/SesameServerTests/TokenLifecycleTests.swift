import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import SesameWebAuthn
import Testing

/// Attacks and protocol rules around token lifetimes: revocation, auth_time, redirect_uri,
/// the refresh reuse interval, JWT access tokens.
@Suite("Attacks: token revocation, auth_time, redirect_uri, refresh reuse interval")
struct TokenLifecycleTests {
    func refresh(_ h: Harness, _ token: String?) async throws -> TestResponse {
        try await h.post("/oauth/token", ["grant_type": "refresh_token", "client_id": h.clientID, "refresh_token": token])
    }

    func userinfo(_ h: Harness, _ token: String) async throws -> TestResponse {
        try await h.get("/userinfo", headers: Harness.bearer(token))
    }

    /// Attack: a thief's access token keeps working for a day after the user logs out (or
    /// after reuse detection): revoking a family ends its access tokens at every Sesame endpoint.
    @Test("revocation: after logout the family's access tokens stop working at /userinfo")
    func accessTokensDieWithTheirFamily() async throws {
        try await Harness.run { h in
            let tokens = try await h.login(email: "ana@example.com")
            let other = try await h.login(email: "ana@example.com")
            #expect(try await userinfo(h, tokens.accessToken).status == .ok)
            _ = try await h.post("/oauth/revoke", ["client_id": h.clientID, "token": tokens.refreshToken])
            #expect(try await userinfo(h, tokens.accessToken).status == .unauthorized)
            #expect(try await userinfo(h, other.accessToken).status == .ok, "another login is unaffected")
        }
    }

    /// Attack: a stolen refresh token is replayed after the real client rotated it; the family
    /// is revoked, and now so are the access tokens minted from it, the thief's included.
    @Test("revocation: reuse detection also ends the family's access tokens")
    func reuseEndsAccessTokens() async throws {
        try await Harness.run { h in
            let original = try await h.login(email: "ana@example.com")
            let rotated = try await refresh(h, original.refreshToken).tokens()
            h.clock.advance(by: 11)
            #expect(try await refresh(h, original.refreshToken).status == .forbidden)
            #expect(try await userinfo(h, rotated.accessToken).status == .unauthorized)
            #expect(try await userinfo(h, original.accessToken).status == .unauthorized)
        }
    }

    /// OIDC Core §2: `auth_time` is when the person authenticated. Moving it forward on every
    /// refresh would let a days-old login pass a `max_age` check.
    @Test("auth_time: refreshed id_tokens keep the original authentication time")
    func authTimeSurvivesRefresh() async throws {
        try await Harness.run { h in
            let tokens = try await h.login(email: "ana@example.com")
            let loginTime = try PasskeyTests.claims(tokens.idToken)["auth_time"] as? Int
            h.clock.advance(by: 3600)
            let refreshed = try await refresh(h, tokens.refreshToken).tokens()
            h.clock.advance(by: 3600)
            let again = try await refresh(h, refreshed.refreshToken).tokens()
            #expect(loginTime != nil)
            #expect(try PasskeyTests.claims(refreshed.idToken)["auth_time"] as? Int == loginTime)
            #expect(try PasskeyTests.claims(again.idToken)["auth_time"] as? Int == loginTime)
        }
    }

    /// Attack (RFC 6749 §4.1.3): a code leaked from one callback is exchanged without naming
    /// the callback it was issued for.
    @Test("redirect_uri: an exchange without the authorization request's redirect_uri is refused")
    func redirectURIRequired() async throws {
        try await Harness.run { h in
            let path = try await MagicLinkTests().sendLink(h)
            let redirect = try await MagicLinkTests().confirm(h, path)
            let code = try #require(MagicLinkTests.query(redirect.headers[.location])["code"])
            let response = try await h.post(
                "/oauth/token",
                [
                    "grant_type": "authorization_code", "client_id": h.clientID, "code": code,
                    "code_verifier": MagicLinkTests.verifier,
                ])
            #expect(response.status == .forbidden && response.error?.error == "invalid_grant")
        }
    }

    /// A mobile client whose refresh response was lost retries with the same token: within
    /// the reuse interval it gets the same replacement once, and the family survives.
    @Test("reuse interval: a retry within 10 s gets the same refresh token, once")
    func retryWithinInterval() async throws {
        try await Harness.run { h in
            let original = try await h.login(email: "ana@example.com")
            let lost = try await refresh(h, original.refreshToken).tokens()
            h.clock.advance(by: 5)
            let retry = try await refresh(h, original.refreshToken)
            #expect(retry.status == .ok)
            #expect(try retry.tokens().refreshToken == lost.refreshToken, "the same replacement")
            #expect(try await refresh(h, lost.refreshToken).status == .ok, "the family lives on")
        }
    }

    /// Attack: the reuse interval must not become a window for a thief: a second retry, a retry
    /// after the replacement was used, or one after the interval is reuse and revokes the family.
    @Test("reuse interval: a second retry, a late retry or a retry after use revokes the family")
    func retryLimits() async throws {
        try await Harness.run { h in
            let first = try await h.login(email: "ana@example.com")
            let heir = try await refresh(h, first.refreshToken).tokens()
            #expect(try await refresh(h, first.refreshToken).status == .ok)
            #expect(try await refresh(h, first.refreshToken).status == .forbidden, "only one retry")
            #expect(try await refresh(h, heir.refreshToken).status == .forbidden, "and the family is revoked")

            let second = try await h.login(email: "ana@example.com")
            let next = try await refresh(h, second.refreshToken).tokens()
            _ = try await refresh(h, next.refreshToken).tokens()
            #expect(try await refresh(h, second.refreshToken).status == .forbidden, "its replacement was already used")

            let third = try await h.login(email: "ana@example.com")
            let later = try await refresh(h, third.refreshToken).tokens()
            h.clock.advance(by: 11)
            #expect(try await refresh(h, third.refreshToken).status == .forbidden, "after the interval")
            #expect(try await refresh(h, later.refreshToken).status == .forbidden)
        }
    }

    /// Two presentations of one token at the same moment (a client racing itself): one
    /// rotates, the other is the retry; both get the same replacement and the family lives.
    @Test("reuse interval: two concurrent presentations get the same replacement")
    func concurrentPresentations() async throws {
        try await Harness.run { h in
            let original = try await h.login(email: "ana@example.com")
            async let a = refresh(h, original.refreshToken)
            async let b = refresh(h, original.refreshToken)
            let (first, second) = try await (a, b)
            #expect(first.status == .ok && second.status == .ok)
            let token = try first.tokens().refreshToken
            #expect(try second.tokens().refreshToken == token)
            #expect(try await refresh(h, token).status == .ok)
        }
    }

    /// RFC 9068: JWT access tokens are typed `at+jwt`, so one can never pass for an id_token;
    /// APIs cannot see revocation, so they live an hour by default.
    @Test("JWT access tokens: typ at+jwt, one hour, auth_time and client_id")
    func jwtAccessTokens() async throws {
        try await Harness.run(configure: { $0.audiences = ["https://api.example.com"] }) { h in
            _ = try await h.start(email: "ana@example.com")
            let response = try await h.post(
                "/oauth/token",
                [
                    "grant_type": GrantType.passwordlessOTP, "client_id": h.clientID, "realm": "email",
                    "username": "ana@example.com", "otp": h.code(for: "ana@example.com"), "audience": "https://api.example.com",
                ])
            let tokens = try response.tokens()
            #expect(tokens.expiresIn == 3600)
            let header = try #require(tokens.accessToken.split(separator: ".").first.flatMap { Base64URL.decode(String($0)) })
            let typ = try JSONSerialization.jsonObject(with: Data(header)) as? [String: Any]
            #expect(typ?["typ"] as? String == "at+jwt")
            let claims = try PasskeyTests.claims(tokens.accessToken)
            #expect(claims["client_id"] as? String == h.clientID && claims["auth_time"] != nil)
            #expect(try await userinfo(h, tokens.accessToken).status == .ok)
        }
    }

    /// The hosted page of a confidential (`regular`) application has no secret to send; the
    /// application is identified by its registered callback, and the code exchange then needs
    /// the secret.
    @Test("hosted /authorize works for a regular (confidential) application")
    func hostedPageForConfidentialApp() async throws {
        try await Harness.run { h in
            let callback = "https://web.example.com/cb"
            let clientID = try await h.seedApplication(name: "Web App", secret: "s3cret", callback: callback)
            var components = URLComponents(string: "/authorize")!
            components.queryItems = [
                .init(name: "client_id", value: clientID), .init(name: "redirect_uri", value: callback),
                .init(name: "response_type", value: "code"), .init(name: "scope", value: "openid"),
            ]
            var fields = AuthorizeTests.hiddenFields(try await h.get(components.string!).text)
            fields["username"] = "ana@example.com"
            let codePage = try await h.form("/authorize/start", fields)
            #expect(codePage.status == .ok)
            var codeFields = AuthorizeTests.hiddenFields(codePage.text)
            let otp = try #require(h.code(for: "ana@example.com"))
            codeFields["otp"] = otp
            let redirect = try await h.finishHosted(try await h.form("/authorize/verify", codeFields))
            let code = try #require(MagicLinkTests.query(redirect.headers[.location])["code"])
            var exchange: [String: Any?] = [
                "grant_type": "authorization_code", "client_id": clientID, "code": code, "redirect_uri": callback,
            ]
            let anonymous = try await h.post("/oauth/token", exchange)
            #expect(anonymous.status == .unauthorized, "the exchange needs the secret")
            exchange["client_secret"] = "s3cret"
            #expect(try await h.post("/oauth/token", exchange).status == .ok)
            let page = try await h.form(
                "/authorize/passkey/challenge",
                ["client_id": clientID, "redirect_uri": callback, "csrf_token": fields["csrf_token"] ?? ""])
            #expect(page.status == .ok, "the page's passkey challenge needs no secret either")
        }
    }
}
