import Foundation
import SesameCore

enum PasskeyChecks {
    static let all = [
        ConformanceCheck("passkeys: signup stores user and passkey together, duplicates refused whole") { store, clock in
            let user = Fixture.user(at: clock.now())
            try await store.createUser(user, withPasskey: passkey("cred-1", user: user.id, at: clock.now()))
            try await expect(try await store.passkey(id: "cred-1")?.userID == user.id, "the passkey is stored")
            try await expect(try await store.user(id: user.id) != nil, "the user is stored")
            let twin = Fixture.user("bob@example.com", at: clock.now())
            try await expectStorageError(.alreadyExists()) {
                try await store.createUser(twin, withPasskey: passkey("cred-1", user: twin.id, at: clock.now()))
            }
            try await expect(try await store.user(id: twin.id) == nil, "a refused signup leaves no user behind")
        },
        ConformanceCheck("passkeys: list, rename, disable, delete") { store, clock in
            let user = Fixture.user(at: clock.now())
            try await store.createUser(user, withPasskey: passkey("cred-a", user: user.id, at: clock.now()))
            clock.advance(by: 1)
            try await store.createPasskey(passkey("cred-b", user: user.id, at: clock.now()))
            try await expect(try await store.passkeys(userID: user.id).map(\.id) == ["cred-a", "cred-b"], "oldest first")
            let renamed = try await store.updatePasskey(id: "cred-b") {
                $0.name = "Laptop"; $0.disabled = true
            }
            try await expect(renamed.name == "Laptop" && renamed.disabled, "update returns the new record")
            try await expect(try await store.passkey(id: "cred-b")?.disabled == true, "update is stored")
            try await store.deletePasskey(id: "cred-b")
            try await expectStorageError(.notFound()) { try await store.deletePasskey(id: "cred-b") }
            try await expectStorageError(.notFound()) { _ = try await store.updatePasskey(id: "cred-b") { _ in } }
            let removed = try await store.deletePasskeys(userID: user.id, createdBefore: clock.now())
            let left = try await store.passkeys(userID: user.id)
            try await expect(removed == 1 && left.isEmpty, "bulk delete by age")
        },
        ConformanceCheck("passkeys: the counter moves once under 50 concurrent uses; disabled keys never move") { store, clock in
            let user = Fixture.user(at: clock.now())
            try await store.createUser(user, withPasskey: passkey("cred-c", user: user.id, at: clock.now()))
            let now = clock.now()
            let results = try await concurrently(50) {
                try await store.recordPasskeyUse(id: "cred-c", expectedCount: 0, newCount: 1, backedUp: true, at: now)
            }
            try await expect(results.filter { $0 }.count == 1, "one use wins")
            try await expect(try await store.passkey(id: "cred-c")?.signCount == 1, "the counter is stored")
            _ = try await store.updatePasskey(id: "cred-c") { $0.disabled = true }
            let used = try await store.recordPasskeyUse(id: "cred-c", expectedCount: 1, newCount: 2, backedUp: true, at: now)
            try await expect(!used, "a disabled passkey cannot be used")
        },
        ConformanceCheck("passkey sessions: 50 concurrent finishes, exactly 1 success; expiry") { store, clock in
            try await store.createPasskeySession(session(hash: 7, at: clock.now()))
            let now = clock.now()
            let results = try await concurrently(50) {
                try await store.consumePasskeySession(hashes: [Array(repeating: 7, count: 32)], at: now)
            }
            try await expect(results.compactMap { $0 }.count == 1, "one finish wins")
            try await expect(results.compactMap { $0 }.first?.pendingUser?.identifier == "ana@example.com", "comes back whole")
            try await store.createPasskeySession(session(hash: 8, at: clock.now()))
            clock.advance(by: 121)
            let late = try await store.consumePasskeySession(hashes: [Array(repeating: 8, count: 32)], at: clock.now())
            try await expect(late == nil, "an expired session is refused")
            try await expect(
                try await store.deleteExpiredPasskeySessions(before: clock.now()) >= 1, "expired sessions are purged")
        },
    ]

    static func passkey(_ id: String, user: String, at now: Date) -> PasskeyCredential {
        PasskeyCredential(
            id: id, userID: user, name: "Passkey", publicKey: [0xA5, 0x01, 0x02], algorithm: -7, signCount: 0,
            backupEligible: true, backedUp: false, format: "none", aaguid: "00000000-0000-0000-0000-000000000000",
            transports: ["internal", "hybrid"], createdAt: now)
    }

    static func session(hash: UInt8, at now: Date) -> PasskeySession {
        PasskeySession(
            id: UUID().uuidString, sessionHash: Array(repeating: hash, count: 32), ceremony: .registration, clientID: "client",
            connection: "email", challenge: Array(repeating: 1, count: 32), pendingUser: Fixture.user(at: now), createdAt: now,
            expiresAt: now.addingTimeInterval(120))
    }
}
