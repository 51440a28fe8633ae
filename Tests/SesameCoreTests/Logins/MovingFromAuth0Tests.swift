import Foundation
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

/// Users brought from Auth0 with their ids, and machine-to-machine applications with client
/// grants, through the Core services alone.
@Suite("Core: moving from Auth0")
struct MovingFromAuth0Tests {
    static let auth0ID = "email|5f7c8ec7c33c6c004bbafe82"

    /// The subject of an id_token, read through the server's own keys.
    static func subject(_ tokens: TokenResponse, _ world: CoreWorld) async throws -> String {
        let idToken = try #require(tokens.idToken)
        return try await world.sesame.keys.signer().verify(idToken, as: IDTokenClaims.self).sub
    }

    @Test("a user created with their Auth0 user_id signs in by email code and gets exactly that sub")
    func createdUserKeepsTheirID() async throws {
        try await CoreWorld.run { world in
            var new = NewUser(connection: "email", email: "Ana@Example.com")
            (new.userID, new.emailVerified) = (Self.auth0ID, true)
            new.profile = ProfileChanges(name: "Ana Lima", givenName: "Ana", familyName: "Lima")
            new.appMetadata = ["plan": .string("pro")]
            let created = try await world.sesame.users.create(new)
            #expect(created.userID == Self.auth0ID && created.email == "ana@example.com" && created.loginsCount == 0)
            let tokens = try await world.signIn("ana@example.com")
            #expect(try await Self.subject(tokens, world) == Self.auth0ID)
            let stored = try await world.sesame.users.user(Self.auth0ID)
            #expect(stored.loginsCount == 1 && stored.givenName == "Ana" && stored.name == "Ana Lima")
            #expect(stored.appMetadata == ["plan": .string("pro")])
            let events = try await world.sesame.storage.recentAuditEvents(limit: 20)
            #expect(events.contains { $0.type == AuditEventType.userCreated.rawValue && $0.detail == "by an operator" })
        }
    }

    @Test("without a user_id the user gets a new id; an sms user needs a phone number")
    func generatedIDAndSMS() async throws {
        try await CoreWorld.run { world in
            let created = try await world.sesame.users.create(NewUser(connection: "sms", phoneNumber: "+15551230001"))
            #expect(created.userID.hasPrefix("sms|") && created.phoneNumber == "+15551230001" && !created.phoneVerified)
            let missing = try await refusal { _ = try await world.sesame.users.create(NewUser(connection: "sms")) }
            #expect(missing.kind == .badRequest)
            let unknown = try await refusal {
                _ = try await world.sesame.users.create(NewUser(connection: "Username-Password-Authentication", email: "a@b.co"))
            }
            #expect(unknown.kind == .badRequest)
        }
    }

    /// Attack: an import (or a careless script) names a user_id that belongs to someone else,
    /// or an address someone already signs in with; merging would hand one person's account
    /// to another.
    @Test("a user_id or address that collides with an existing user is 409, on any connection")
    func userIDThatCollidesIsRefused() async throws {
        try await CoreWorld.run { world in
            var first = NewUser(connection: "email", email: "ana@example.com")
            first.userID = Self.auth0ID
            _ = try await world.sesame.users.create(first)
            var sameID = NewUser(connection: "sms", phoneNumber: "+15551230001")
            sameID.userID = "sms|5f7c8ec7c33c6c004bbafe82"
            #expect(try await refusal { _ = try await world.sesame.users.create(sameID) }.kind == .conflict)
            let sameAddress = NewUser(connection: "email", email: "ANA@example.com")
            #expect(try await refusal { _ = try await world.sesame.users.create(sameAddress) }.kind == .conflict)
            #expect(try await world.sesame.storage.countUsers(UserSearch()) == 1)
        }
    }

    /// Attack: a user_id of another connection (`sms|…` on the email connection) or one with
    /// characters that break paths and `sub` parsing (`a/b`, a second pipe).
    @Test("a user_id of another connection or with unsafe characters is 400")
    func malformedUserIDIsRefused() async throws {
        try await CoreWorld.run { world in
            for id in ["sms|abc", "a/b", "email|a|b", "email|", String(repeating: "a", count: 129)] {
                var new = NewUser(connection: "email", email: "ana@example.com")
                new.userID = id
                let candidate = new
                let refused = try await refusal { _ = try await world.sesame.users.create(candidate) }
                #expect(refused.kind == .badRequest, "\(id)")
            }
        }
    }

    @Test("a new email moves the sign-in address, unproven unless said otherwise, audited; a taken one is 409")
    func changedEmail() async throws {
        try await CoreWorld.run { world in
            _ = try await world.signIn("ana@example.com")
            _ = try await world.signIn("bo@example.com")
            let ana = try #require(try await world.sesame.users.search(UserSearch(match: .email("ana@example.com"))).users.first)
            var changes = UserChanges()
            changes.email = "ana@new.example"
            let moved = try await world.sesame.users.update(ana.userID, changes)
            #expect(moved.identifier == "ana@new.example" && !moved.emailVerified)
            let tokens = try await world.signIn("ana@new.example")
            #expect(try await Self.subject(tokens, world) == ana.userID, "the new address signs in as the same user")
            changes.email = "bo@example.com"
            #expect(try await refusal { _ = try await world.sesame.users.update(ana.userID, changes) }.kind == .conflict)
            let updates = try await world.sesame.storage.recentAuditEvents(limit: 30).filter {
                $0.type == AuditEventType.userUpdated.rawValue
            }
            #expect(updates.contains { $0.detail == "email" })
            #expect(WebhookEventType(audit: AuditEventType.userUpdated.rawValue) == .userUpdated)
        }
    }
}
