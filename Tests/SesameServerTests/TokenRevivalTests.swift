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
}
