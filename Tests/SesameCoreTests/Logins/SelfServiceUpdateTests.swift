import Foundation
import SesameAPI
import SesameCore
import Testing

/// A user changing their own record with their own access token, through Core alone.
@Suite("Core: a user's own metadata changes")
struct SelfServiceUpdateTests {
    static let scope = "openid email update:current_user_metadata"

    @Test("a user's own token changes only their own user_metadata")
    func ownMetadataOnly() async throws {
        try await CoreWorld.run { world in
            let ana = try await world.sesame.tokens.authenticate(
                accessToken: try await world.signIn("ana@example.com", scope: Self.scope).accessToken)
            let bob = try await world.sesame.tokens.authenticate(
                accessToken: try await world.signIn("bob@example.com", scope: Self.scope).accessToken)
            let updated = try await world.sesame.users.updateOwn(
                ana.user.userID, UserChanges(userMetadata: ["theme": .string("dark")]), by: ana)
            #expect(updated.userMetadata?["theme"] == .string("dark"))

            // Attack: a user's token names another user, or a field only an operator may set.
            let other = try await refusal {
                try await world.sesame.users.updateOwn(
                    bob.user.userID, UserChanges(userMetadata: ["theme": .string("dark")]), by: ana)
            }
            let blockedField = try await refusal {
                try await world.sesame.users.updateOwn(ana.user.userID, UserChanges(name: "Admin"), by: ana)
            }
            for error in [other, blockedField] {
                #expect(error.code.rawValue == "insufficient_scope")
            }
            #expect(try await world.sesame.users.user(bob.user.userID).userMetadata == nil)
        }
    }

    @Test("a token without update:current_user_metadata changes nothing")
    func tokenWithoutScope() async throws {
        try await CoreWorld.run { world in
            let ana = try await world.sesame.tokens.authenticate(
                accessToken: try await world.signIn("ana@example.com", scope: "openid email").accessToken)
            let error = try await refusal {
                try await world.sesame.users.updateOwn(
                    ana.user.userID, UserChanges(userMetadata: ["theme": .string("dark")]), by: ana)
            }
            #expect(error.code.rawValue == "insufficient_scope")
        }
    }

    // Attack: account pre-hijacking. A stranger holding an account whose address nobody has
    // proven writes metadata for the address's real owner to find; Core refuses it.
    @Test("an account with an unproven address cannot change its own metadata")
    func unprovenAddressPreHijacking() async throws {
        try await CoreWorld.run { world in
            let tokens = try await world.signIn("ana@example.com", scope: Self.scope)
            let signedIn = try await world.sesame.tokens.authenticate(accessToken: tokens.accessToken)
            _ = try await world.sesame.storage.updateUser(id: signedIn.user.id) { $0.emailVerified = false }
            let unproven = try await world.sesame.tokens.authenticate(accessToken: tokens.accessToken)
            let error = try await refusal {
                try await world.sesame.users.updateOwn(
                    unproven.user.userID, UserChanges(userMetadata: ["theme": .string("dark")]), by: unproven)
            }
            #expect(error.code.rawValue == "access_denied")
        }
    }
}
