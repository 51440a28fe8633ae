import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import SesameWebAuthn
import Testing

/// Each test names the attack it stops.
@Suite("Device-key login: attacks")
struct DeviceKeyAttackTests {
    static func description(_ response: TestResponse) -> String { response.error?.errorDescription ?? response.text }

    /// Attack: an assertion captured on the wire (or from a log) sent again within its lifetime.
    @Test("replay within the validity window is refused")
    func replayWithinWindow() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let assertion = device.assertion(h)
            #expect(try await h.deviceLogin(assertion).status == .ok)
            h.clock.advance(by: 5)
            let user = try #require(try await h.sesame.storage.user(connection: "email", identifier: "ana@example.com"))
            let replay = try await h.deviceLogin(assertion)
            #expect(replay.status == .forbidden && replay.error?.error == "invalid_grant")
            #expect(Self.description(replay).contains("already been used"))
            // The replay's claim and the login's record are one write: a refused replay counts
            // no login and audits no success, only its refusal.
            let after = try #require(try await h.sesame.storage.user(id: user.id))
            #expect(after.loginsCount == user.loginsCount && after.lastLogin == user.lastLogin)
            let events = try await h.sesame.storage.auditEvents(AuditQuery(userID: user.userID)).map(\.type)
            #expect(events.first == AuditEventType.deviceKeyRefused.rawValue, "\(events)")
            #expect(events.filter { $0 == AuditEventType.login.rawValue }.count == user.loginsCount, "\(events)")
        }
    }

    /// Attack: racing copies of one assertion so several pass the check before any records it.
    @Test("20 concurrent copies of one assertion: exactly one succeeds")
    func concurrentReplay() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let assertion = device.assertion(h)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await h.deviceLogin(assertion).status.code } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == 403 }.count == 19)
        }
    }

    /// Attack: a user who owns a registered key names another user in `sub` to sign in as them.
    @Test("user A's key cannot sign in as user B")
    func keyOfAnotherUser() async throws {
        try await Harness.run { h in
            let ana = try await h.enroll("ana@example.com")
            let bob = try await h.enroll("bob@example.com", deviceID: "B0B0")
            let asBob = try await h.deviceLogin(ana.assertion(h) { $0["sub"] = bob.userID })
            #expect(asBob.status == .forbidden && Self.description(asBob).contains("does not belong"))
            // And pointing kid at Bob's credential while signing with Ana's key fails the signature.
            var claims = bob.claims(h)
            claims["sub"] = bob.userID
            let forged = ana.key.jwt(claims, header: ["kid": bob.credentialID])
            let response = try await h.deviceLogin(forged)
            #expect(response.status == .forbidden && Self.description(response).contains("signature"))
        }
    }

    /// Attack (RFC 8725 §2.1): the public key is public, so a verifier that lets the token pick
    /// HS256 would check an HMAC keyed with the public key, which anyone can compute.
    @Test("alg confusion: HS256 keyed with the registered public key is refused", arguments: ["pem", "der"])
    func hmacWithPublicKey(_ form: String) async throws {
        try await Harness.run { h in
            let device = try await h.enroll(key: SharedKeys.rsa2048)
            let pem = device.key.publicPEM
            let secret =
                form == "pem" ? Data(pem.utf8) : Data(base64Encoded: pem.split(separator: "\n").dropFirst().dropLast().joined())!
            let header: [String: Any] = ["alg": "HS256", "typ": "JWT", "kid": device.credentialID]
            let input = TestJWT.encode(header) + "." + TestJWT.encode(device.claims(h))
            let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: secret))
            let response = try await h.deviceLogin(input + "." + Base64URL.encode(Array(mac)))
            #expect(response.status == .forbidden && Self.description(response).contains("alg"))
        }
    }

    /// Attack: an unsigned token (`alg: none`) that a permissive library would accept.
    @Test("alg none is refused", arguments: ["none", "None", "NONE"])
    func algNone(_ alg: String) async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let token = TestJWT.unsigned(header: ["alg": alg, "kid": device.credentialID], claims: device.claims(h))
            let response = try await h.deviceLogin(token)
            #expect(response.status == .forbidden && response.error?.error == "invalid_grant")
        }
    }

    /// Attack: a token whose header names another algorithm than the key's type.
    @Test("RS256 against an EC key, or ES256 against an RSA key, is refused")
    func algMismatch() async throws {
        try await Harness.run { h in
            let ec = try await h.enroll()
            let rsa = try await h.enroll("bob@example.com", key: SharedKeys.rsa2048, deviceID: "B0B0")
            let wrongForEC = SharedKeys.rsa2048.jwt(ec.claims(h), header: ["kid": ec.credentialID])
            #expect(Self.description(try await h.deviceLogin(wrongForEC)).contains("alg"))
            let wrongForRSA = TestDeviceKey.p256().jwt(rsa.claims(h), header: ["kid": rsa.credentialID])
            #expect(Self.description(try await h.deviceLogin(wrongForRSA)).contains("alg"))
        }
    }

    /// Attack: changing the claims of a captured assertion (a later `exp`, another `jti`).
    @Test("a tampered payload fails the signature")
    func tamperedPayload() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let parts = device.assertion(h).split(separator: ".").map(String.init)
            var claims = device.claims(h)
            claims["jti"] = "fresh-id"
            let tampered = parts[0] + "." + TestJWT.encode(claims) + "." + parts[2]
            let response = try await h.deviceLogin(tampered)
            #expect(response.status == .forbidden && Self.description(response).contains("signature"))
        }
    }

    /// Attack: using an old captured assertion after its lifetime.
    @Test("an expired assertion is refused")
    func expired() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let assertion = device.assertion(h)
            h.clock.advance(by: 61)
            let response = try await h.deviceLogin(assertion)
            #expect(response.status == .forbidden && Self.description(response).contains("expired"))
        }
    }

    /// Attack: a device (or malware on it) minting assertions dated in the future, to be used
    /// long after the key is revoked or the phone is taken.
    @Test("a far-future iat is refused, and so is a lifetime over 60 s")
    func farFuture() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let now = h.clock.now().epochSeconds
            let future = try await h.deviceLogin(
                device.assertion(h) {
                    $0["iat"] = now + 3600; $0["exp"] = now + 3630
                })
            #expect(Self.description(future).contains("future"))
            let long = try await h.deviceLogin(device.assertion(h) { $0["exp"] = now + 3600 })
            #expect(Self.description(long).contains("60 seconds"))
            let missing = try await h.deviceLogin(device.assertion(h) { $0["iat"] = nil })
            #expect(Self.description(missing).contains("iat"))
        }
    }

    /// Attack: an assertion without a `jti` could not be recognised when replayed.
    @Test("a missing jti is refused")
    func missingJTI() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let response = try await h.deviceLogin(device.assertion(h) { $0["jti"] = nil })
            #expect(response.status == .forbidden && Self.description(response).contains("jti"))
        }
    }

    /// Attack: a lost or stolen phone keeps signing after the user removed the key.
    @Test("a deleted key is refused at once")
    func deletedKey() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            #expect(try await h.deleteDevice(device.credentialID, token: device.accessToken).status == .noContent)
            let response = try await h.deviceLogin(device.assertion(h))
            #expect(response.status == .forbidden && Self.description(response).contains("Unknown device"))
        }
    }

    /// Attack: a blocked user keeps signing in with a key registered before the block.
    @Test("a blocked user is refused at once")
    func blockedUser() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let user = try #require(try await h.sesame.storage.user(connection: "email", identifier: "ana@example.com"))
            _ = try await h.sesame.storage.updateUser(id: user.id) { $0.blocked = true }
            let response = try await h.deviceLogin(device.assertion(h))
            #expect(response.status == .unauthorized && response.error?.errorDescription == "user is blocked")
        }
    }

    /// Attack: a key registered for one application used to sign in to another.
    @Test("a key works only for the application it was registered for")
    func otherApplication() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let other = SesameCore.Application(
                clientID: "other-app", clientSecret: nil, name: "Other", type: .native, createdAt: h.clock.now())
            try await h.sesame.storage.createApplication(other)
            let response = try await h.post(
                "/oauth/token",
                ["grant_type": GrantType.jwtBearer, "client_id": "other-app", "assertion": device.assertion(h)])
            #expect(response.status == .forbidden && Self.description(response).contains("Unknown device"))
        }
    }

    /// Attack: an assertion naming a credential that does not exist (or a guessed id).
    @Test("an unknown kid, or none, is refused")
    func unknownKid() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let unknown = device.key.jwt(device.claims(h), header: ["kid": "dcr_000000000000000000000000"])
            #expect(Self.description(try await h.deviceLogin(unknown)).contains("Unknown device"))
            let noKid = device.key.jwt(device.claims(h))
            #expect(Self.description(try await h.deviceLogin(noKid)).contains("kid"))
        }
    }

    /// Attack: turning the legacy switch off must also stop 1024-bit keys already registered.
    @Test("a 1024-bit key registered under the legacy switch stops signing in when it is off")
    func rsa1024AfterSwitchOff() async throws {
        try await Harness.run(configure: { $0.deviceKeys.allowRSA1024 = true }) { h in
            let device = try await h.enroll(key: SharedKeys.rsa1024)
            #expect(try await h.deviceLogin(device.assertion(h)).status == .ok)
            // The same database served with the switch off, as after a restart with the new setting.
            var settings = h.sesame.settings
            settings.deviceKeys.allowRSA1024 = false
            let restarted = try await Sesame.bootstrap(
                storage: h.sesame.storage, settings: settings, delivery: MessageDelivery(email: h.sender, sms: h.sender),
                clock: h.clock)
            let application = try #require(try await h.sesame.storage.application(clientID: h.clientID))
            let grant = TokenGrantRequest(application: application, scope: Scope("openid"))
            await #expect(throws: SesameError.invalidGrant(DeviceKeyAttackTests.badSignature)) {
                _ = try await restarted.deviceKeys.login.finish(.bearer(assertion: device.assertion(h)), request: grant, ip: nil)
            }
        }
    }

    static let badSignature = "Invalid signature: the assertion was not signed by the registered device key."
}
