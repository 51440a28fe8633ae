import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

@Suite("Refresh tokens and revocation")
struct RefreshTokenTests {
    static let invalid = ErrorBody(error: "invalid_grant", errorDescription: "Unknown or invalid refresh token.")

    func refresh(_ h: Harness, _ token: String?, scope: String? = nil) async throws -> TestResponse {
        try await h.post(
            "/oauth/token", ["grant_type": "refresh_token", "client_id": h.clientID, "refresh_token": token, "scope": scope])
    }

    @Test("rotation: each use returns a new refresh token and new tokens")
    func rotation() async throws {
        try await Harness.run { h in
            let first = try await h.login(email: "ana@example.com")
            let second = try await refresh(h, first.refreshToken)
            #expect(second.status.code == 200)
            let tokens = try second.tokens()
            #expect(tokens.refreshToken != nil && tokens.refreshToken != first.refreshToken)
            #expect(tokens.idToken != nil && tokens.scope == "openid profile email offline_access")
            #expect(try await refresh(h, tokens.refreshToken).status.code == 200)
        }
    }

    /// Attack: a stolen refresh token used after the real client already rotated it. The
    /// reuse is detected and every token of that login (the thief's and the user's) dies.
    @Test("reuse of a rotated token revokes the whole family")
    func reuseRevokesFamily() async throws {
        try await Harness.run { h in
            let original = try await h.login(email: "ana@example.com")
            let rotated = try await refresh(h, original.refreshToken).tokens()
            h.clock.advance(by: 11)  // past the reuse interval, which allows one retry
            let replay = try await refresh(h, original.refreshToken)
            #expect(replay.status.code == 403 && replay.error == Self.invalid)
            #expect(try await refresh(h, rotated.refreshToken).error == Self.invalid, "the heir is revoked too")
            let other = try await h.login(email: "ana@example.com")
            #expect(try await refresh(h, other.refreshToken).status.code == 200, "other logins are unaffected")
        }
    }

    @Test("scope may narrow, never widen")
    func scopes() async throws {
        try await Harness.run { h in
            let tokens = try await h.login(email: "ana@example.com", scope: "openid email offline_access")
            let narrowed = try await refresh(h, tokens.refreshToken, scope: "openid")
            #expect(try narrowed.tokens().scope == "openid")
            let widened = try await refresh(h, try narrowed.tokens().refreshToken, scope: "openid profile")
            #expect(widened.status.code == 403 && widened.error?.error == "invalid_scope")
        }
    }

    @Test("revocation ends the family; unknown tokens still answer 200")
    func revoke() async throws {
        try await Harness.run { h in
            let tokens = try await h.login(email: "ana@example.com")
            let revoked = try await h.post("/oauth/revoke", ["client_id": h.clientID, "token": tokens.refreshToken])
            #expect(revoked.status == .ok && revoked.body.readableBytes == 0)
            #expect(try await refresh(h, tokens.refreshToken).error == Self.invalid)
            #expect(try await h.post("/oauth/revoke", ["client_id": h.clientID, "token": "nonsense"]).status == .ok)
            let missing = try await h.post("/oauth/revoke", ["client_id": h.clientID])
            #expect(missing.status == .badRequest && missing.error?.errorDescription == "Missing required parameter: token")
        }
    }

    /// Attack: a token of one application presented by another.
    @Test("a refresh token works only for its own client")
    func otherClient() async throws {
        try await Harness.run { h in
            let tokens = try await h.login(email: "ana@example.com")
            let other = Application(clientID: "other-app", clientSecret: nil, name: "Other", type: .native, createdAt: Date())
            try await h.sesame.storage.createApplication(other)
            let response = try await h.post(
                "/oauth/token", ["grant_type": "refresh_token", "client_id": "other-app", "refresh_token": tokens.refreshToken])
            #expect(response.error == Self.invalid)
            #expect(try await refresh(h, tokens.refreshToken).status.code == 200, "the owner's token still works")
        }
    }

    @Test("blocked users cannot refresh")
    func blocked() async throws {
        try await Harness.run { h in
            let tokens = try await h.login(email: "ana@example.com")
            let user = try #require(try await h.sesame.storage.listUsers(limit: 1, offset: 0).first)
            _ = try await h.sesame.storage.updateUser(id: user.id) { $0.blocked = true }
            let response = try await refresh(h, tokens.refreshToken)
            #expect(
                response.status.code == 401
                    && response.error == ErrorBody(error: "unauthorized", errorDescription: "user is blocked"))
        }
    }

    @Test("refresh tokens expire")
    func expiry() async throws {
        try await Harness.run { h in
            let tokens = try await h.login(email: "ana@example.com")
            h.clock.advance(by: 30 * 86400 + 1)
            #expect(try await refresh(h, tokens.refreshToken).error == Self.invalid)
        }
    }

    @Test("a confidential application must send its secret")
    func confidentialClient() async throws {
        try await Harness.run { h in
            try await h.sesame.storage.createApplication(
                Application(clientID: "web", clientSecret: "s3cret", name: "Web", type: .regular, createdAt: Date()))
            let body: [String: Any?] = ["grant_type": "refresh_token", "client_id": "web", "refresh_token": "x"]
            let missing = try await h.post("/oauth/token", body)
            #expect(missing.status == .unauthorized && missing.error?.error == "invalid_client")
            var wrong = body
            wrong["client_secret"] = "guess"
            #expect(try await h.post("/oauth/token", wrong).error?.errorDescription == "Client authentication failed.")
            var right = body
            right["client_secret"] = "s3cret"
            #expect(try await h.post("/oauth/token", right).error == Self.invalid, "authenticated, then the token is checked")
        }
    }
}
