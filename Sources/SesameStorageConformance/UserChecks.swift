import Foundation
import SesameCore

enum UserChecks {
    static let all = [
        ConformanceCheck("users: create, get, list, update, delete") { store, clock in
            let user = Fixture.user(at: clock.now())
            try await store.createUser(user)
            try await expect(try await store.user(id: user.id) == user, "get by id returns the stored user")
            try await expect(try await store.user(connection: "email", identifier: user.identifier) == user, "get by identifier")
            try await expect(try await store.listUsers(limit: 10, offset: 0).map(\.id) == [user.id], "list")
            let updated = try await store.updateUser(id: user.id) {
                $0.blocked = true; $0.name = "Ana"
            }
            try await expect(updated.blocked && updated.name == "Ana", "update returns the new value")
            try await expect(try await store.user(id: user.id)?.blocked == true, "update is stored")
            try await store.deleteUser(id: user.id, at: clock.now())
            try await expect(try await store.user(id: user.id) == nil, "delete removes the user")
            try await expectStorageError(.notFound()) { try await store.deleteUser(id: user.id, at: clock.now()) }
            try await expectStorageError(.notFound()) { _ = try await store.updateUser(id: user.id) { _ in } }
        },
        ConformanceCheck("users: blocking and deleting revoke refresh tokens with the same write") { store, clock in
            let now = clock.now()
            let user = Fixture.user(id: "abc", at: now)
            try await store.createUser(user)
            try await store.createRefreshToken(Fixture.refreshToken(family: "f1", hash: 1, at: now))
            let blocked = try await store.setUserBlocked(id: user.id, true, at: now)
            try await expect(blocked.blocked && blocked.updatedAt == now, "blocking returns the blocked user")
            try await expect(try await store.isRefreshFamilyRevoked("f1"), "blocking revokes the user's refresh tokens")
            try await store.createRefreshToken(Fixture.refreshToken(family: "f2", hash: 2, at: now))
            let unblocked = try await store.setUserBlocked(id: user.id, false, at: now)
            let stored = try await store.user(id: user.id)
            try await expect(
                blocked.tokensValidAfter == now && stored?.tokensValidAfter == now,
                "blocking ends every token issued before it, in the same write")
            try await expect(!unblocked.blocked && unblocked.tokensValidAfter == now, "unblocking revives none")
            try await expect(!(try await store.isRefreshFamilyRevoked("f2")), "unblocking revokes nothing")
            try await store.deleteUser(id: user.id, at: now)
            try await expect(try await store.isRefreshFamilyRevoked("f2"), "deleting revokes the user's refresh tokens")
            try await expectStorageError(.notFound()) { _ = try await store.setUserBlocked(id: user.id, true, at: now) }
        },
        ConformanceCheck("users: duplicate identifier is alreadyExists") { store, clock in
            try await store.createUser(Fixture.user(at: clock.now()))
            try await expectStorageError(.alreadyExists()) { try await store.createUser(Fixture.user(at: clock.now())) }
        },
        ConformanceCheck("users: 20 concurrent first logins create one user") { store, clock in
            let now = clock.now()
            let users = try await concurrently(20) { try await store.recordLogin(Fixture.user(at: now), at: now) }
            try await expect(Set(users.map(\.id)).count == 1, "one user id for every login")
            let stored = try await store.user(connection: "email", identifier: "ana@example.com")
            try await expect(stored?.loginsCount == 20, "every login is counted, got \(stored?.loginsCount ?? -1)")
            try await expect(stored?.lastLogin == now, "last login recorded")
        },
        ConformanceCheck("users: timestamps round-trip to the millisecond") { store, clock in
            let instant = Date(epochMilliseconds: clock.now().epochMilliseconds + 123)
            let user = Fixture.user(at: instant)
            try await store.createUser(user)
            try await expect(try await store.user(id: user.id)?.createdAt == instant, "created_at keeps milliseconds")
        },
    ]
}

enum ApplicationChecks {
    static let all = [
        ConformanceCheck("applications: create, get, list, update, delete, duplicate") { store, clock in
            var app = Fixture.application("abc", at: clock.now())
            app.iosBundleIDs = ["com.example.app"]
            try await store.createApplication(app)
            try await expect(try await store.application(clientID: "abc") == app, "get returns the stored application")
            try await expectStorageError(.alreadyExists()) { try await store.createApplication(app) }
            let updated = try await store.updateApplication(clientID: "abc") { $0.callbacks.append("https://b.example/cb") }
            try await expect(updated.callbacks.count == 2, "update applies the change")
            try await expect(try await store.listApplications() == [updated], "list holds the updated application")
            try await store.deleteApplication(clientID: "abc")
            try await expect(try await store.application(clientID: "abc") == nil, "delete removes it")
            try await expectStorageError(.notFound()) { try await store.deleteApplication(clientID: "abc") }
        },
        ConformanceCheck("connections: save, overwrite, list") { store, _ in
            try await store.saveConnection(Connection(name: "email", strategy: .email))
            try await store.saveConnection(Connection(name: "sms", strategy: .sms, codeLength: 8))
            try await store.saveConnection(Connection(name: "email", strategy: .email, maxAttempts: 5))
            try await expect(try await store.connection(name: "email")?.maxAttempts == 5, "save overwrites")
            try await expect(try await store.listConnections().map(\.name) == ["email", "sms"], "list by name")
            try await expect(try await store.connection(name: "nope") == nil, "unknown connection is nil")
        },
    ]
}
