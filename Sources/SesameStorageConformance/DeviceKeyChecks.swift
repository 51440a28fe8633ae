import Foundation
import SesameCore

/// Device credentials, the device-key single-use gates and management tokens.
enum DeviceKeyChecks {
    static let all = credentials + gates + claimedLogins + adminTokens

    static let credentials = [
        ConformanceCheck("device credentials: save, get, list, delete") { store, clock in
            let credential = Fixture.deviceCredential(id: "dcr_1", at: clock.now())
            try await store.saveDeviceCredential(credential)
            try await expect(try await store.deviceCredential(id: "dcr_1") == credential, "round-trips every field")
            try await store.saveDeviceCredential(Fixture.deviceCredential(id: "dcr_2", user: "email|bob", at: clock.now()))
            try await expect(
                try await store.deviceCredentials(userID: "email|ana", clientID: nil).map(\.id) == ["dcr_1"], "filters by user")
            try await expect(try await store.deviceCredentials(userID: nil, clientID: "other").isEmpty, "filters by client")
            try await expect(try await store.deviceCredentials(userID: nil, clientID: nil).count == 2, "lists all")
            try await store.deleteDeviceCredential(id: "dcr_1")
            try await expect(try await store.deviceCredential(id: "dcr_1") == nil, "deleted")
            try await expectStorageError(.notFound()) { try await store.deleteDeviceCredential(id: "dcr_1") }
        },
        ConformanceCheck("device credentials: a credential read with the user it names, in one read") { store, clock in
            let owner = Fixture.user(id: "u_owner", at: clock.now())
            try await store.createUser(owner)
            let credential = Fixture.deviceCredential(id: "dcr_1", user: owner.userID, at: clock.now())
            try await store.saveDeviceCredential(credential)
            let read = try await store.deviceCredential(id: "dcr_1", withUser: "u_owner")
            try await expect(read?.0 == credential, "the credential, every field")
            try await expect(read?.1 == owner, "and its user, every field")
            let unknownUser = try await store.deviceCredential(id: "dcr_1", withUser: "u_nobody")
            try await expect(unknownUser?.0 == credential && unknownUser?.1 == nil, "no user when none has the id")
            try await expect(try await store.deviceCredential(id: "dcr_none", withUser: "u_owner") == nil, "no credential")
        },
        ConformanceCheck("device credentials: re-registering a device replaces its key") { store, clock in
            try await store.saveDeviceCredential(Fixture.deviceCredential(id: "dcr_old", at: clock.now()))
            try await store.saveDeviceCredential(Fixture.deviceCredential(id: "dcr_other_app", client: "other", at: clock.now()))
            clock.advance(by: 1)
            try await store.saveDeviceCredential(Fixture.deviceCredential(id: "dcr_new", at: clock.now()))
            try await expect(try await store.deviceCredential(id: "dcr_old") == nil, "the old key is gone")
            let ids = try await store.deviceCredentials(userID: "email|ana", clientID: nil).map(\.id)
            try await expect(ids == ["dcr_other_app", "dcr_new"], "one key per user, app and device: \(ids)")
        },
        ConformanceCheck("device credentials: 20 concurrent re-registrations leave one key") { store, clock in
            let now = clock.now()
            _ = try await concurrently(20) {
                try await store.saveDeviceCredential(Fixture.deviceCredential(id: "dcr_\(UUID().uuidString)", at: now))
            }
            try await expect(try await store.deviceCredentials(userID: "email|ana", clientID: nil).count == 1, "exactly one key")
        },
    ]

    /// A device-key login records itself only if its assertion id is unused, in one step.
    static let claimedLogins = [
        ConformanceCheck("claimed login: records the login and claims its id; a held id records nothing") { store, clock in
            let now = clock.now()
            let plan = LoginAudit(events: [.created: [AuditEvent(type: "login", detail: "claimed", at: now)]])
            func login(_ hash: [UInt8], at time: Date) async throws -> User? {
                try await store.recordLogin(
                    Fixture.user(at: time), at: time, audit: plan, claimingAssertionID: hash,
                    expiresAt: now.addingTimeInterval(90))
            }
            let user = try await login([1], at: now)
            try await expect(user?.loginsCount == 1, "the first use records the login")
            try await expect(try await store.auditEvents(AuditQuery()).map(\.detail) == ["claimed"], "with its events")
            try await expect(try await login([1], at: now) == nil, "a replay records nothing")
            let stored = try await store.user(id: user?.id ?? "")
            try await expect(stored?.loginsCount == 1, "not counted: \(stored?.loginsCount ?? 0)")
            try await expect(try await store.auditEvents(AuditQuery()).count == 1, "no events written for the replay")
            try await expect(
                !(try await store.claimAssertionID([1], expiresAt: now.addingTimeInterval(90), at: now)),
                "the id is held as claimAssertionID holds it")
            try await expect(try await login([2], at: now)?.loginsCount == 2, "another id logs in")
            clock.advance(by: 91)
            try await expect(try await login([1], at: clock.now())?.loginsCount == 3, "free again after expiry")
        },
        ConformanceCheck("claimed login: 20 concurrent uses of one id, exactly one recorded") { store, clock in
            let now = clock.now()
            let plan = LoginAudit(events: [:])
            let users = try await concurrently(20) {
                try await store.recordLogin(
                    Fixture.user(at: now), at: now, audit: plan, claimingAssertionID: [7, 7],
                    expiresAt: now.addingTimeInterval(90))
            }
            let recorded = users.compactMap { $0 }
            try await expect(recorded.count == 1, "one use wins, got \(recorded.count)")
            try await expect(try await store.user(id: recorded.first?.id ?? "")?.loginsCount == 1, "counted once")
        },
        ConformanceCheck("claimed login: a blocked user's login is recorded and the id spent") { store, clock in
            let now = clock.now()
            let user = try await store.recordLogin(Fixture.user(at: now), at: now)
            _ = try await store.setUserBlocked(id: user.id, true, at: now)
            let blocked = try await store.recordLogin(
                Fixture.user(at: now), at: now, audit: LoginAudit(events: [:]), claimingAssertionID: [3],
                expiresAt: now.addingTimeInterval(90))
            try await expect(blocked?.blocked == true && blocked?.loginsCount == 2, "recorded, for the caller to refuse")
            try await expect(
                !(try await store.claimAssertionID([3], expiresAt: now.addingTimeInterval(90), at: now)), "the id is spent")
        },
    ]

    static let gates = [
        ConformanceCheck("assertion ids: 50 concurrent claims of one jti, exactly 1 success") { store, clock in
            let now = clock.now()
            let results = try await concurrently(50) {
                try await store.claimAssertionID([1, 2, 3], expiresAt: now.addingTimeInterval(90), at: now)
            }
            try await expect(results.filter { $0 }.count == 1, "one claim wins, got \(results.filter { $0 }.count)")
            try await expect(
                try await store.claimAssertionID([4], expiresAt: now.addingTimeInterval(90), at: now), "another id is free")
        },
        ConformanceCheck("assertion ids: kept until expiry, then reclaimable and collected") { store, clock in
            let start = clock.now()
            try await expect(
                try await store.claimAssertionID([9], expiresAt: start.addingTimeInterval(90), at: start), "first claim")
            clock.advance(by: 89)
            try await expect(
                !(try await store.claimAssertionID([9], expiresAt: clock.now().addingTimeInterval(90), at: clock.now())),
                "still held")
            clock.advance(by: 2)
            try await expect(try await store.deleteExpiredDeviceAssertions(before: clock.now()) == 1, "GC removes the expired id")
            try await expect(
                try await store.claimAssertionID([9], expiresAt: clock.now().addingTimeInterval(90), at: clock.now()),
                "free after expiry")
        },
        ConformanceCheck("device nonces: 50 concurrent consumes, exactly 1 success; bound to the client") { store, clock in
            let now = clock.now()
            try await store.createDeviceNonce(hash: [7], clientID: "app", createdAt: now, expiresAt: now.addingTimeInterval(120))
            try await expect(
                !(try await store.consumeDeviceNonce(hashes: [[7]], clientID: "other", at: now)), "another app cannot use it")
            let results = try await concurrently(50) {
                try await store.consumeDeviceNonce(hashes: [[8], [7]], clientID: "app", at: now)
            }
            try await expect(results.filter { $0 }.count == 1, "one consume wins, got \(results.filter { $0 }.count)")
        },
        ConformanceCheck("device nonces: expired nonces are refused and collected") { store, clock in
            try await store.createDeviceNonce(
                hash: [5], clientID: "app", createdAt: clock.now(), expiresAt: clock.now().addingTimeInterval(120))
            clock.advance(by: 121)
            try await expect(!(try await store.consumeDeviceNonce(hashes: [[5]], clientID: "app", at: clock.now())), "expired")
            try await expect(try await store.deleteExpiredDeviceAssertions(before: clock.now()) == 1, "GC removes it")
        },
    ]

    static let adminTokens = [
        ConformanceCheck("admin tokens: create, find by hash, list, delete") { store, clock in
            let token = AdminToken(id: "adm_1", name: "ci", tokenHash: [3, 3], createdAt: clock.now())
            try await store.createAdminToken(token)
            try await expectStorageError(.alreadyExists()) { try await store.createAdminToken(token) }
            try await expect(try await store.adminToken(hashes: [[1], [3, 3]]) == token, "found by any candidate hash")
            try await expect(try await store.listAdminTokens() == [token], "listed")
            try await store.deleteAdminToken(id: "adm_1")
            try await expect(try await store.adminToken(hashes: [[3, 3]]) == nil, "deleted tokens stop working")
            try await expectStorageError(.notFound()) { try await store.deleteAdminToken(id: "adm_1") }
        },
        ConformanceCheck("admin tokens: the expiry round-trips; none means none") { store, clock in
            let expiring = AdminToken(
                id: "adm_2", name: "temporary", tokenHash: [4], createdAt: clock.now(), scopes: ["read:logs"],
                expiresAt: clock.now().addingTimeInterval(3600))
            try await store.createAdminToken(expiring)
            try await expect(try await store.adminToken(hashes: [[4]]) == expiring, "read back with its expiry")
            try await store.createAdminToken(AdminToken(id: "adm_3", name: "forever", tokenHash: [5], createdAt: clock.now()))
            try await expect(try await store.adminToken(hashes: [[5]])?.expiresAt == nil, "no expiry stays none")
        },
    ]
}

extension Fixture {
    static func deviceCredential(
        id: String, user: String = "email|ana", client: String = "app", device: String = "A1B2", at now: Date
    ) -> DeviceCredential {
        DeviceCredential(
            id: id, userID: user, clientID: client, deviceID: device, deviceName: "Ana's phone", algorithm: .es256,
            publicKey: Array(repeating: 4, count: 91), fingerprint: "AA:BB", keyBits: 256, createdAt: now)
    }
}
