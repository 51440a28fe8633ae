import Foundation
import SesameCore
import SesameStorageConformance
import Testing

/// Refresh rotation and operator actions through the Core services alone.
@Suite("Core: refresh tokens and user administration")
struct TokenAndAdministrationTests {
    @Test("refresh rotates the token; presenting the old one after the reuse interval revokes the family")
    func refreshRotation() async throws {
        try await CoreWorld.run { world in
            let first = try await world.signIn("ana@example.com")
            let second = try await world.sesame.tokens.refresh(first.refreshToken, application: world.application, scope: nil)
            #expect(second.refreshToken != nil && second.refreshToken != first.refreshToken)
            world.clock.advance(by: 11)
            await #expect(throws: SesameError.self) {
                _ = try await world.sesame.tokens.refresh(first.refreshToken, application: world.application, scope: nil)
            }
            await #expect(throws: SesameError.self) {
                _ = try await world.sesame.tokens.refresh(second.refreshToken, application: world.application, scope: nil)
            }
            await #expect(throws: SesameError.self) {
                _ = try await world.sesame.tokens.userInfo(accessToken: second.accessToken)
            }
        }
    }

    @Test("blocking ends every token at once, is audited, and unblocking lets the user sign in again")
    func blockAndUnblock() async throws {
        try await CoreWorld.run { world in
            let tokens = try await world.signIn("ana@example.com")
            let user = try #require(try await world.sesame.storage.listUsers(limit: 1, offset: 0).first)
            let admin = UserAdministration(storage: world.sesame.storage, clock: world.clock)
            let blocked = try await admin.block(user.userID)
            #expect(blocked.blocked && blocked.updatedAt == world.clock.now())
            await #expect(throws: SesameError.self) {
                _ = try await world.sesame.tokens.userInfo(accessToken: tokens.accessToken)
            }
            await #expect(throws: SesameError.self) {
                _ = try await world.sesame.tokens.refresh(tokens.refreshToken, application: world.application, scope: nil)
            }
            try await admin.unblock(user.userID)
            _ = try await world.signIn("ana@example.com")
            let events = try await world.sesame.storage.recentAuditEvents(limit: 20).map(\.type)
            #expect(
                events.contains(AuditEventType.userBlocked.rawValue) && events.contains(AuditEventType.userUnblocked.rawValue))
        }
    }

    @Test("deleting a user removes them and revokes their tokens; unknown ids are 404")
    func delete() async throws {
        try await CoreWorld.run { world in
            let tokens = try await world.signIn("ana@example.com")
            let user = try #require(try await world.sesame.storage.listUsers(limit: 1, offset: 0).first)
            let admin = UserAdministration(storage: world.sesame.storage, clock: world.clock)
            try await admin.delete(user.userID)
            #expect(try await world.sesame.storage.user(id: user.id) == nil)
            await #expect(throws: SesameError.self) {
                _ = try await world.sesame.tokens.refresh(tokens.refreshToken, application: world.application, scope: nil)
            }
            await #expect { try await admin.delete(user.userID) } throws: { ($0 as? SesameError)?.kind == .notFound }
            await #expect { _ = try await admin.user("nonsense") } throws: { ($0 as? SesameError)?.kind == .notFound }
        }
    }
}
