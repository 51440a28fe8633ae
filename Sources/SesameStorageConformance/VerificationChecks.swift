import Foundation
import SesameAPI
import SesameCore

/// The first proof of an address (``UserRepository/verifyAddress(userID:keepingChallenge:at:_:)``):
/// one operation that ends everything made while the address was unproven, and nothing else.
enum VerificationChecks {
    static let all = [
        ConformanceCheck("users: verifying an address ends what was made before it, and only that") { store, clock in
            let now = clock.now()
            var user = Fixture.user("ana_b@example.com", at: now)
            (user.emailVerified, user.name, user.userMetadata) = (false, "Mallory", ["planted": .string("yes")])
            try await store.createUser(user)
            let other = Fixture.user("bo@example.com", at: now)
            try await store.createUser(other)
            try await seedBefore(user, other: other, store: store, at: now)
            clock.advance(by: 1)
            let outcome = try await store.verifyAddress(userID: user.id, keepingChallenge: "ch-keep", at: clock.now()) {
                ($0.emailVerified, $0.name, $0.userMetadata, $0.tokensValidAfter) = (true, $0.identifier, nil, clock.now())
            }
            try await expect(
                outcome.passkeys == 1 && outcome.deviceKeys == 1 && outcome.authorizationCodes == 1
                    && outcome.linkRequests == 1 && outcome.passkeySessions == 2 && outcome.browserSessions == 1,
                "counts: \(outcome)")
            let stored = try await store.user(id: user.id)
            try await expect(
                stored?.emailVerified == true && stored?.name == user.identifier && stored?.userMetadata == nil
                    && stored?.tokensValidAfter == clock.now() && stored == outcome.user, "the user is saved as transformed")
            try await checkAfter(user, other: other, store: store, at: clock.now())
        },
        ConformanceCheck("users: verifying an unknown user is notFound") { store, clock in
            try await expectStorageError(.notFound()) {
                _ = try await store.verifyAddress(userID: "nobody", keepingChallenge: nil, at: clock.now()) { _ in }
            }
        },
    ]

    /// What an attacker could hold before the proof, for `user`, and the like for `other`.
    private static func seedBefore(_ user: User, other: User, store: any SesameStorage, at now: Date) async throws {
        try await store.createPasskey(PasskeyChecks.passkey("pk-u", user: user.id, at: now))
        try await store.createPasskey(PasskeyChecks.passkey("pk-o", user: other.id, at: now))
        try await store.saveDeviceCredential(
            DeviceCredential(
                id: "dcr_u", userID: user.userID, clientID: "client", deviceID: "d", deviceName: "d", algorithm: .es256,
                publicKey: [1], fingerprint: "f", keyBits: 256, createdAt: now))
        for (owner, family, hash) in [(user, "fam-u", UInt8(1)), (other, "fam-o", 2)] {
            var token = Fixture.refreshToken(family: family, hash: hash, at: now)
            token.userID = owner.userID
            try await store.createRefreshToken(token)
        }
        for (owner, hash) in [(user, UInt8(11)), (user, 12), (other, 13)] {
            var code = Fixture.authorizationCode(hash: hash, at: now)
            code.userID = owner.userID
            try await store.createAuthorizationCode(code)
        }
        _ = try await store.consumeAuthorizationCode(hashes: [Array(repeating: 12, count: 32)], at: now)
        for (id, recipient, challenge, hash) in [
            ("lr-keep", user.identifier, "ch-keep", UInt8(21)), ("lr-old", user.identifier, "ch-old", 22),
            ("lr-other", other.identifier, "ch-other", 23),
        ] {
            var request = LinkRequestChecks.request(id: id, hash: hash, at: now)
            (request.recipient, request.challengeID) = (recipient, challenge)
            try await store.createLinkRequest(request)
        }
        var lookalike = user
        (lookalike.id, lookalike.identifier) = ("0000lookalike", "anaxb@example.com")
        var signup = user
        signup.id = "0000signup"
        for (hash, ceremony, pending) in [
            (UInt8(31), PasskeyCeremony.enrollment, user), (32, .registration, signup), (33, .registration, lookalike),
        ] {
            var session = PasskeyChecks.session(hash: hash, at: now)
            (session.ceremony, session.pendingUser) = (ceremony, pending)
            try await store.createPasskeySession(session)
        }
        try await store.createBrowserSession(SessionChecks.session(id: "bs-u", user: user.userID, hash: 41, at: now))
        try await store.createBrowserSession(SessionChecks.session(id: "bs-o", user: other.userID, hash: 42, at: now))
    }

    private static func checkAfter(_ user: User, other: User, store: any SesameStorage, at now: Date) async throws {
        try await expect(try await store.passkeys(userID: user.id).isEmpty, "the user's passkeys are gone")
        try await expect(try await store.passkeys(userID: other.id).count == 1, "another user's passkey stays")
        try await expect(try await store.deviceCredentials(userID: user.userID, clientID: nil).isEmpty, "device keys gone")
        try await expect(try await store.isRefreshFamilyRevoked("fam-u"), "the user's refresh tokens are revoked")
        try await expect(!(try await store.isRefreshFamilyRevoked("fam-o")), "another user's are not")
        try await expect(
            try await store.consumeAuthorizationCode(hashes: [Array(repeating: 11, count: 32)], at: now) == nil,
            "the user's unexchanged code is gone")
        try await expect(
            try await store.consumeAuthorizationCode(hashes: [Array(repeating: 13, count: 32)], at: now) != nil,
            "another user's code still works")
        try await expect(try await store.linkRequest(id: "lr-old")?.status == .denied, "the address's link request is refused")
        try await expect(try await store.linkRequest(id: "lr-keep")?.status == .pending, "the one this proof answers waits on")
        try await expect(try await store.linkRequest(id: "lr-other")?.status == .pending, "another address's waits on")
        for (hash, ended) in [(UInt8(31), true), (32, true), (33, false)] {
            let found = try await store.consumePasskeySession(hashes: [Array(repeating: hash, count: 32)], at: now)
            try await expect((found == nil) == ended, "passkey ceremony \(hash) \(ended ? "ended" : "lives")")
        }
        let sessions = try await store.browserSessions(userID: user.userID, at: now)
        try await expect(sessions.isEmpty, "the user's browser sessions are revoked")
        try await expect(try await store.browserSessions(userID: other.userID, at: now).count == 1, "another's stay")
    }
}
