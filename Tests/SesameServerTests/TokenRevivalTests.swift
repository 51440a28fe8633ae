import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

/// Attacks that bring a way in back to life after it should have ended: a block lifted, a
/// code replayed.
@Suite("Attacks: token revival after a block and after a replayed code")
struct TokenRevivalTests {
    /// Attack: an access token stolen (or kept by a fired employee) before the account was
    /// blocked works again the moment the block is lifted, though the block should have ended it.
    /// A login without `offline_access` has no refresh-token family to revoke.
    @Test("block then unblock: access tokens issued before the block stay dead")
    func unblockRevivesNothing() async throws {
        try await Harness.run { h in
            let stolen = try await h.login(email: "ana@example.com", scope: "openid profile email")
            #expect(try await h.get("/userinfo", headers: Harness.bearer(stolen.accessToken)).status == .ok)
            let user = try #require(try await h.sesame.storage.user(connection: "email", identifier: "ana@example.com"))
            h.clock.advance(by: 1)
            let administration = UserAdministration(storage: h.sesame.storage, clock: h.clock)
            _ = try await administration.block(user.userID)
            h.clock.advance(by: 60)
            _ = try await administration.unblock(user.userID)
            let revived = try await h.get("/userinfo", headers: Harness.bearer(stolen.accessToken))
            #expect(revived.status == .unauthorized, "the token of before the block stays dead")
            let fresh = try await h.login(email: "ana@example.com", scope: "openid profile email")
            #expect(try await h.get("/userinfo", headers: Harness.bearer(fresh.accessToken)).status == .ok)
        }
    }

    /// Attack (RFC 6749 §4.1.2): a code leaks (a log, a referrer, a malicious app on the
    /// callback) and is exchanged by the thief first; the client's own exchange is refused,
    /// but the thief's refresh and access tokens kept working. A replay ends that login.
    @Test("replayed authorization code: the refresh and access tokens of its first exchange are revoked")
    func replayRevokesFirstExchange() async throws {
        try await Harness.run { h in
            let code = try await Self.code(h, scope: "openid email offline_access")
            let first = try await PreHijackingTests.exchange(h, code)
            let thief = try first.tokens()
            #expect(thief.refreshToken != nil)
            #expect(try await h.get("/userinfo", headers: Harness.bearer(thief.accessToken)).status == .ok)
            let replay = try await PreHijackingTests.exchange(h, code)
            #expect(replay.status == .forbidden && replay.error?.error == "invalid_grant")
            let refresh = try await h.post(
                "/oauth/token",
                [
                    "grant_type": "refresh_token", "client_id": "app-web", "client_secret": "s3cret",
                    "refresh_token": thief.refreshToken,
                ])
            #expect(refresh.status == .forbidden, "the refresh-token family of the first exchange is revoked")
            #expect(try await h.get("/userinfo", headers: Harness.bearer(thief.accessToken)).status == .unauthorized)
        }
    }

    /// Attack: the same, for a login without `offline_access`: no refresh token, but its
    /// access token must end with the replay too.
    @Test("replayed authorization code: the access token of a first exchange without a refresh token is revoked")
    func replayRevokesAccessToken() async throws {
        try await Harness.run { h in
            let code = try await Self.code(h, scope: "openid email")
            let thief = try await PreHijackingTests.exchange(h, code).tokens()
            #expect(thief.refreshToken == nil)
            #expect(try await h.get("/userinfo", headers: Harness.bearer(thief.accessToken)).status == .ok)
            #expect(try await PreHijackingTests.exchange(h, code).status == .forbidden)
            #expect(try await h.get("/userinfo", headers: Harness.bearer(thief.accessToken)).status == .unauthorized)
            let other = try await PreHijackingTests.exchange(h, try await Self.code(h, scope: "openid email")).tokens()
            #expect(
                try await h.get("/userinfo", headers: Harness.bearer(other.accessToken)).status == .ok,
                "another login of the same user lives on")
        }
    }

    /// A code for ana (signed in once with a code) to the confidential "Web" application, as
    /// the hosted page would redirect with it.
    static func code(_ h: Harness, scope: String) async throws -> String {
        if try await h.sesame.storage.application(clientID: "app-web") == nil {
            _ = try await h.seedApplication(name: "Web", secret: "s3cret")
            _ = try await h.login(email: "ana@example.com")
        }
        let user = try #require(try await h.sesame.storage.user(connection: "email", identifier: "ana@example.com"))
        let application = try #require(try await h.sesame.storage.application(clientID: "app-web"))
        return try await h.sesame.tokens.issueAuthorizationCode(
            user: user, application: application, redirectURI: PreHijackingTests.callback,
            parameters: AuthorizeParameters(responseType: "code", scope: scope))
    }
}
