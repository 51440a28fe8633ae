import Foundation
import SesameCore

/// Users brought from Auth0 (their own ids, names, a changed address) and client grants.
enum MachineClientChecks {
    static let all = [
        ConformanceCheck("users: an operator's user keeps its id and names; a taken id is alreadyExists") { store, clock in
            var user = Fixture.user(id: "5f7c8ec7c33c6c004bbafe82", at: clock.now())
            (user.givenName, user.familyName, user.emailVerified) = ("Ana", "Lima", false)
            try await store.createUser(user)
            try await expect(try await store.user(id: user.id) == user, "id, given_name and family_name round-trip")
            try await expectStorageError(.alreadyExists()) {
                try await store.createUser(Fixture.user("other@example.com", id: user.id, at: clock.now()))
            }
        },
        ConformanceCheck("users: an update moves the identifier; one another user has is alreadyExists") { store, clock in
            let ana = Fixture.user(at: clock.now())
            try await store.createUser(ana)
            try await store.createUser(Fixture.user("bo@example.com", at: clock.now()))
            let moved = try await store.updateUser(id: ana.id) {
                ($0.identifier, $0.email, $0.givenName) = ("ana@new.example", "ana@new.example", "Ana")
            }
            try await expect(moved.identifier == "ana@new.example", "update returns the new identifier")
            try await expect(
                try await store.user(connection: "email", identifier: "ana@new.example")?.givenName == "Ana",
                "the user is found by the new identifier, with the new name")
            try await expect(
                try await store.user(connection: "email", identifier: "ana@example.com") == nil, "not by the old one")
            try await expectStorageError(.alreadyExists()) {
                _ = try await store.updateUser(id: ana.id) { $0.identifier = "bo@example.com" }
            }
        },
        ConformanceCheck("client grants: create, get, list, update, delete; one per application and audience") { store, clock in
            let now = clock.now()
            let grant = ClientGrant(
                id: "cgr_1", clientID: "m2m", audience: "https://a/api/v2/", scope: ["read:users"], createdAt: now)
            try await store.createClientGrant(grant)
            try await expect(try await store.clientGrant(id: "cgr_1") == grant, "get by id")
            try await expect(
                try await store.clientGrant(clientID: "m2m", audience: "https://a/api/v2/") == grant, "get by client and audience"
            )
            var duplicate = grant
            duplicate.id = "cgr_2"
            try await expectStorageError(.alreadyExists()) { try await store.createClientGrant(duplicate) }
            let other = ClientGrant(id: "cgr_3", clientID: "m2m", audience: "https://b/", scope: [], createdAt: now)
            try await store.createClientGrant(other)
            try await expect(try await store.clientGrants(clientID: "m2m", audience: nil).count == 2, "list by client")
            try await expect(try await store.clientGrants(clientID: nil, audience: "https://b/") == [other], "list by audience")
            let updated = try await store.updateClientGrant(id: "cgr_1") { $0.scope = ["read:users", "read:logs"] }
            try await expect(updated.scope == ["read:users", "read:logs"], "update returns the new scope")
            try await expect(try await store.clientGrant(id: "cgr_1")?.scope == updated.scope, "update is stored")
            try await store.deleteClientGrant(id: "cgr_1")
            try await expect(try await store.clientGrant(id: "cgr_1") == nil, "delete removes it")
            try await expectStorageError(.notFound()) { try await store.deleteClientGrant(id: "cgr_1") }
            try await expectStorageError(.notFound()) { _ = try await store.updateClientGrant(id: "cgr_1") { _ in } }
        },
        ConformanceCheck("client grants: deleting an application deletes its grants") { store, clock in
            let app = Fixture.application(at: clock.now())
            try await store.createApplication(app)
            try await store.createClientGrant(
                ClientGrant(id: "cgr_x", clientID: app.clientID, audience: "https://a/", scope: [], createdAt: clock.now()))
            try await store.deleteApplication(clientID: app.clientID)
            try await expect(try await store.clientGrants(clientID: app.clientID, audience: nil).isEmpty, "no grant remains")
        },
        ConformanceCheck("audit: one event by number, those after a number oldest first, and counts") { store, clock in
            for type in ["login", "code_sent", "login"] {
                try await store.recordAudit(AuditEvent(type: type, userID: "email|a", detail: "", at: clock.now()))
            }
            let all = try await store.auditEvents(AuditQuery(limit: 10))
            guard let oldest = all.last?.seq else { throw ConformanceFailure(message: "no numbers", location: #fileID) }
            try await expect(
                try await store.auditEvents(AuditQuery(seq: oldest, limit: 10)).map(\.seq) == [oldest], "one event by number")
            let after = try await store.auditEvents(AuditQuery(after: oldest, limit: 10)).map(\.seq)
            try await expect(after == all.dropLast().reversed().map(\.seq), "the events after it, oldest first")
            try await expect(try await store.countAuditEvents(AuditQuery(limit: 1)) == 3, "count ignores the limit")
            try await expect(
                try await store.countAuditEvents(AuditQuery(type: "login", limit: 1, offset: 1)) == 2, "count filters")
        },
        ConformanceCheck("refresh tokens: the live family's current token, listed by user and found by family; revoked") {
            store, clock in
            let now = clock.now()
            try await store.createRefreshToken(Fixture.refreshToken(family: "f1", hash: 1, at: now))
            try await store.createRefreshToken(Fixture.refreshToken(family: "f2", hash: 2, at: now.addingTimeInterval(1)))
            _ = try await store.rotateRefreshToken(hashes: [Array(repeating: 1, count: 32)], clientID: "client", at: now) {
                Fixture.refreshToken(family: $0.familyID, hash: 3, at: now)
            }
            let listed = try await store.liveRefreshTokens(userID: "email|abc", at: now)
            try await expect(listed.map(\.familyID).sorted() == ["f1", "f2"], "one current token a family")
            try await expect(
                try await store.liveRefreshToken(familyID: "f1", at: now)?.tokenHash == Array(repeating: 3, count: 32),
                "the family's current token is the rotated one's replacement")
            try await expect(try await store.revokeRefreshFamily("f1", at: now), "revoking a live family")
            try await expect(try await store.isRefreshFamilyRevoked("f1"), "the family is revoked")
            try await expect(try await store.liveRefreshToken(familyID: "f1", at: now) == nil, "and no longer live")
            try await expect(!(try await store.revokeRefreshFamily("f1", at: now)), "not twice")
            try await expect(
                try await store.liveRefreshTokens(userID: "email|abc", at: now.addingTimeInterval(7200)).isEmpty,
                "expired families are not listed")
        },
    ]
}
