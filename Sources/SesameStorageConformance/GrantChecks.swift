import Foundation
import SesameCore

enum GrantChecks {
    static let all = [
        ConformanceCheck("authorization codes: 50 concurrent exchanges, exactly 1 success") { store, clock in
            try await store.createAuthorizationCode(Fixture.authorizationCode(hash: 1, at: clock.now()))
            let now = clock.now()
            let results = try await concurrently(50) {
                try await store.consumeAuthorizationCode(hashes: [Array(repeating: 1, count: 32)], at: now)
            }
            try await expect(results.compactMap { $0 }.count == 1, "one exchange wins")
            try await expect(results.compactMap { $0 }.first?.nonce == "n", "the code comes back whole")
        },
        ConformanceCheck("authorization codes: expire") { store, clock in
            try await store.createAuthorizationCode(Fixture.authorizationCode(hash: 2, at: clock.now()))
            clock.advance(by: 301)
            let code = try await store.consumeAuthorizationCode(hashes: [Array(repeating: 2, count: 32)], at: clock.now())
            try await expect(code == nil, "an expired code is refused")
        },
        ConformanceCheck("refresh tokens: rotation, reuse revokes the family") { store, clock in
            let now = clock.now()
            try await store.createRefreshToken(Fixture.refreshToken(hash: 1, at: now))
            let first = try await store.rotateRefreshToken(hashes: [Array(repeating: 1, count: 32)], clientID: "client", at: now)
            {
                Fixture.refreshToken(family: $0.familyID, hash: 2, at: now)
            }
            guard case .rotated(let previous) = first else { throw ConformanceFailure(message: "not rotated", location: "") }
            try await expect(previous.familyID == "family", "rotation returns the old token")
            let replay = try await store.rotateRefreshToken(hashes: [Array(repeating: 1, count: 32)], clientID: "client", at: now)
            {
                Fixture.refreshToken(family: $0.familyID, hash: 3, at: now)
            }
            try await expect(replay == .reused(familyID: "family"), "presenting a rotated token is reuse")
            let heir = try await store.rotateRefreshToken(hashes: [Array(repeating: 2, count: 32)], clientID: "client", at: now) {
                Fixture.refreshToken(family: $0.familyID, hash: 4, at: now)
            }
            try await expect(heir == .reused(familyID: "family"), "the whole family is revoked after reuse")
        },
        ConformanceCheck("refresh tokens: a rotation reads the token's user in its own transaction") { store, clock in
            let now = clock.now()
            let user = Fixture.user(id: "abc", at: now)
            try await store.createUser(user)
            try await store.createRefreshToken(Fixture.refreshToken(hash: 1, at: now))
            func rotate(_ hash: UInt8, heir: UInt8) async throws -> (RefreshRotation, User?) {
                try await store.rotateRefreshTokenReadingUser(
                    hashes: [Array(repeating: hash, count: 32)], clientID: "client", at: now, reuseInterval: 10, key: .any
                ) { Fixture.refreshToken(family: $0.familyID, hash: heir, at: now) }
            }
            let (rotated, owner) = try await rotate(1, heir: 2)
            try await expect(rotated.wasRotated && owner == user, "a rotation returns the token's user, every field")
            let (retried, retryOwner) = try await rotate(1, heir: 2)
            try await expect(retried != rotated && retryOwner == user, "so does the retry: \(retried)")
            let (reused, reuseOwner) = try await rotate(1, heir: 3)
            try await expect(reused == .reused(familyID: "family") && reuseOwner == nil, "reuse reads no user")
            let (unknown, unknownOwner) = try await rotate(9, heir: 4)
            try await expect(unknown == .unknown && unknownOwner == nil, "nor does an unknown token")
            var orphan = Fixture.refreshToken(family: "orphans", hash: 5, at: now)
            orphan.userID = "email|gone"
            try await store.createRefreshToken(orphan)
            let (spent, noOwner) = try await rotate(5, heir: 6)
            try await expect(spent.wasRotated && noOwner == nil, "a token whose user is gone rotates, with no user")
        },
        ConformanceCheck("refresh tokens: 50 concurrent rotations, exactly 1 success") { store, clock in
            let now = clock.now()
            try await store.createRefreshToken(Fixture.refreshToken(hash: 1, at: now))
            let results = try await concurrently(50) {
                let hash = UInt8.random(in: 10...250)
                return try await store.rotateRefreshToken(hashes: [Array(repeating: 1, count: 32)], clientID: "client", at: now) {
                    var token = Fixture.refreshToken(family: $0.familyID, hash: hash, at: now)
                    token.tokenHash[0] = 0  // distinct from the original whatever the random byte
                    token.tokenHash[1] = hash
                    return token
                }
            }
            try await expect(results.filter(\.wasRotated).count == 1, "one rotation wins")
        },
        ConformanceCheck("refresh tokens: other client, expiry, revocation") { store, clock in
            let now = clock.now()
            try await store.createRefreshToken(Fixture.refreshToken(family: "f1", hash: 1, at: now))
            try await store.createRefreshToken(Fixture.refreshToken(family: "f2", hash: 2, at: now))
            let foreign = try await store.rotateRefreshToken(hashes: [Array(repeating: 1, count: 32)], clientID: "other", at: now)
            { $0 }
            try await expect(foreign == .unknown, "another client's token is unknown to this client")
            try await expect(
                try await store.revokeRefreshToken(hashes: [Array(repeating: 2, count: 32)], clientID: "client", at: now),
                "revoke finds the token")
            let revoked = try await store.rotateRefreshToken(
                hashes: [Array(repeating: 2, count: 32)], clientID: "client", at: now
            ) { $0 }
            try await expect(revoked == .reused(familyID: "f2"), "a revoked token no longer rotates")
            clock.advance(by: 3601)
            let expired = try await store.rotateRefreshToken(
                hashes: [Array(repeating: 1, count: 32)], clientID: "client", at: clock.now()
            ) { $0 }
            try await expect(expired == .unknown, "an expired token is unknown")
        },
    ]
}

enum SupportChecks {
    static let all = [
        ConformanceCheck("keys: signing keys (activation order, retirement) and HMAC secrets") { store, clock in
            try await store.addSigningKey(SigningKeyRecord(kid: "a", privateKeyPEM: "pem-a", createdAt: clock.now()))
            clock.advance(by: 10)
            try await store.addSigningKey(SigningKeyRecord(kid: "b", privateKeyPEM: "pem-b", createdAt: clock.now()))
            try await expect(try await store.signingKeys().map(\.kid) == ["b", "a"], "newest signing key first")
            try await expectStorageError(.alreadyExists()) {
                try await store.addSigningKey(SigningKeyRecord(kid: "a", privateKeyPEM: "x", createdAt: clock.now()))
            }
            let next = SigningKeyRecord(kid: "c", privateKeyPEM: "pem-c", createdAt: clock.now(), activeFrom: clock.now() + 600)
            try await store.addSigningKey(next)
            try await expect(try await store.signingKeys().first == next, "the key that activates last comes first")
            try await expect(try await store.retireSigningKey(kid: "a", at: clock.now()), "a live key retires")
            try await expect(!(try await store.retireSigningKey(kid: "a", at: clock.now())), "retiring twice does nothing")
            try await expect(!(try await store.retireSigningKey(kid: "zz", at: clock.now())), "an unknown kid is not retired")
            try await expect(try await store.signingKeys().last?.retiredAt == clock.now(), "retirement is recorded")
            try await store.addHMACSecret([1, 2, 3], at: clock.now())
            try await store.addHMACSecret([4, 5, 6], at: clock.now())
            try await expect(try await store.hmacSecrets() == [[4, 5, 6], [1, 2, 3]], "newest secret first")
            let rotated = HMACKeyRecord(secret: [7, 8], createdAt: clock.now(), activeFrom: clock.now() + 600)
            try await store.addHMACKey(rotated)
            let keys = try await store.hmacKeys()
            try await expect(keys.first == rotated, "the HMAC key that activates last comes first")
            try await expect(keys.dropFirst().map(\.secret) == [[4, 5, 6], [1, 2, 3]], "then the older keys, newest first")
            try await expect(keys.last?.activeFrom == clock.now(), "a key from before rotation hashes from its creation")
        },
        ConformanceCheck("rate limits: 50 concurrent hits all count; a new window restarts") { store, clock in
            let window = clock.now()
            let counts = try await concurrently(50) { try await store.hit(key: "ip:1", windowStart: window) }
            try await expect(Set(counts) == Set(1...50), "each hit sees a distinct count")
            try await expect(try await store.hit(key: "ip:1", windowStart: window.addingTimeInterval(3600)) == 1, "new window")
            try await expect(try await store.hit(key: "ip:2", windowStart: window) == 1, "keys are independent")
        },
        ConformanceCheck("outbox keeps the newest messages; audit log is ordered") { store, clock in
            let start = try await store.outboxMessages(after: nil, limit: 10)
            try await expect(start.messages.isEmpty, "a follower starts after the newest message")
            for index in 0..<5 {
                try await store.addOutboxMessage(
                    OutboxMessage(
                        id: "m\(index)", channel: "email", recipient: "a@b.c", code: "\(index)", link: nil,
                        subject: "s", body: "b", createdAt: clock.now()), keep: 3)
            }
            try await expect(
                try await store.recentOutboxMessages(limit: 10, recipient: nil).map(\.id) == ["m4", "m3", "m2"], "newest 3 kept")
            try await expect(try await store.recentOutboxMessages(limit: 10, recipient: "x@y.z").isEmpty, "filter by recipient")
            try await expect(
                try await store.recentOutboxMessages(limit: 1, recipient: "a@b.c").map(\.id) == ["m4"], "newest to a@b.c")
            let first = try await store.outboxMessages(after: start.cursor, limit: 2)
            try await expect(first.messages.map(\.message.id) == ["m2", "m3"], "followed oldest first, from those kept")
            try await expect(first.cursor == first.messages[1].number, "the cursor is the last number read")
            let rest = try await store.outboxMessages(after: first.cursor, limit: 10)
            try await expect(rest.messages.map(\.message.id) == ["m4"], "then on from the cursor")
            try await expect(try await store.outboxMessages(after: rest.cursor, limit: 10).messages.isEmpty, "nothing new")
            try await store.recordAudit(AuditEvent(type: "login", detail: "one", at: clock.now()))
            try await store.recordAudit(AuditEvent(type: "login", detail: "two", at: clock.now()))
            try await expect(try await store.recentAuditEvents(limit: 1).map(\.detail) == ["two"], "newest audit event first")
        },
    ]
}

enum SettingsChecks {
    static let all = [
        ConformanceCheck("settings: set, overwrite and remove, all or nothing") { store, clock in
            try await expect(try await store.storedSettings().isEmpty, "no settings at first")
            try await store.updateSettings(
                set: ["issuer": "https://a.example/", "email.provider": "smtp"], remove: [], at: clock.now())
            try await store.updateSettings(
                set: ["issuer": "https://b.example/"], remove: ["email.provider", "never.set"], at: clock.now())
            try await expect(try await store.storedSettings() == ["issuer": "https://b.example/"], "overwritten and removed")
            try await store.ping()
        }
    ]
}
