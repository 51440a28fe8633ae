import Crypto
import Foundation
import SesameAPI
import SesameCore
import SesameStorageConformance
import SesameWebAuthn
import SesameWebAuthnTesting
import Testing

/// Passkeys and device keys through the Core services alone.
@Suite("Core: passkeys and device keys")
struct PasskeyAndDeviceKeyLoginTests {
    static let origin = "https://login.example.com"
    static let rpID = "login.example.com"

    /// The options a ceremony sends to the authenticator, as JSON.
    static func options(_ challenge: PasskeyChallenge) throws -> [String: Any] {
        let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(challenge)) as? [String: Any]
        return json?["authn_params_public_key"] as? [String: Any] ?? [:]
    }

    /// The challenge bytes a ceremony's options carry.
    static func challengeBytes(_ challenge: PasskeyChallenge) throws -> [UInt8] {
        try #require(SesameAPI.Base64URL.decode(try options(challenge)["challenge"] as? String ?? ""))
    }

    @Test("passkey signup then login: one unverified user, no refresh token until the address is proven")
    func passkeySignupThenLogin() async throws {
        try await CoreWorld.run { world in
            let authenticator = SoftwareAuthenticator.es256()
            let credentialID: [UInt8] = Array(repeating: 0xA7, count: 16)
            let signup = try await world.sesame.passkeys.startRegistration(
                application: world.application, realm: nil, profile: ["email": "ana@example.com"], ip: "198.51.100.7")
            var registration = RegistrationFixture(authenticator)
            registration.challenge = try Self.challengeBytes(signup)
            registration.clientData = ClientDataFixture(type: "webauthn.create", origin: Self.origin)
            registration.rpIDForHash = Self.rpID
            registration.credentialID = credentialID
            let created = try await world.sesame.passkeys.finish(
                authSession: signup.authSession, response: try JSONEncoder().encode(try registration.build()),
                request: world.request(), ip: nil)
            #expect(created.idToken != nil && created.refreshToken == nil)
            // The answer's scope says what was granted: no refresh token, so no offline_access.
            #expect(!Scope(created.scope).contains("offline_access") && Scope(created.scope).contains("openid"))

            let login = try await world.sesame.passkeys.startAuthentication(
                application: world.application, realm: nil, ip: "198.51.100.7")
            var assertion = AuthenticationFixture(authenticator)
            assertion.challenge = try Self.challengeBytes(login)
            assertion.clientData = ClientDataFixture(type: "webauthn.get", origin: Self.origin)
            assertion.rpIDForHash = Self.rpID
            assertion.credentialID = credentialID
            let user = try Self.options(signup)["user"] as? [String: Any]
            assertion.userHandle = SesameAPI.Base64URL.decode(user?["id"] as? String ?? "")
            let tokens = try await world.sesame.passkeys.finish(
                authSession: login.authSession, response: try JSONEncoder().encode(try assertion.build()),
                request: world.request(), ip: nil)
            let profile = try await world.sesame.tokens.userInfo(accessToken: tokens.accessToken)
            #expect(profile.email == "ana@example.com" && profile.emailVerified == false)
        }
    }

    @Test("device key: a key registered by an operator signs in once per jti")
    func deviceKeyLogin() async throws {
        try await CoreWorld.run { world in
            let (user, key, credential) = try await Self.enrollDevice(world)
            let now = world.clock.now().epochSeconds
            let jwt = try Self.jwt(
                key, kid: credential.id,
                claims: ["sub": user.userID, "aud": CoreWorld.issuer, "iat": now, "exp": now + 30, "jti": "j1"])
            let tokens = try await world.sesame.deviceKeys.login.finish(
                .bearer(assertion: jwt), request: world.request(), ip: nil)
            #expect(tokens.idToken != nil)
            await #expect {
                _ = try await world.sesame.deviceKeys.login.finish(.bearer(assertion: jwt), request: world.request(), ip: nil)
            } throws: { ($0 as? SesameError)?.code == .invalidGrant }
        }
    }

    @Test("an operator deletes a device credential: its key stops signing in, and the change is audited")
    func operatorDeletesDeviceKey() async throws {
        try await CoreWorld.run { world in
            let (user, key, credential) = try await Self.enrollDevice(world)
            let admin = CredentialAdministration(storage: world.sesame.storage, clock: world.clock)
            try await admin.deleteDeviceCredential(credential.id)
            let now = world.clock.now().epochSeconds
            let jwt = try Self.jwt(
                key, kid: credential.id,
                claims: ["sub": user.userID, "aud": CoreWorld.issuer, "iat": now, "exp": now + 30, "jti": "j2"])
            await #expect(throws: SesameError.self) {
                _ = try await world.sesame.deviceKeys.login.finish(.bearer(assertion: jwt), request: world.request(), ip: nil)
            }
            let events = try await world.sesame.storage.recentAuditEvents(limit: 20)
            #expect(events.contains { $0.type == AuditEventType.deviceCredentialDeleted.rawValue && $0.userID == user.userID })
            await #expect { try await admin.deletePasskey("no-such-passkey") } throws: { ($0 as? SesameError)?.kind == .notFound }
            await #expect { try await admin.setPasskeyDisabled("no-such-passkey", true) } throws: {
                ($0 as? SesameError)?.kind == .notFound
            }
        }
    }

    /// Ana, signed in with a code, and a P-256 device key an operator registered for her.
    static func enrollDevice(_ world: CoreWorld) async throws -> (User, P256.Signing.PrivateKey, DeviceCredential) {
        _ = try await world.signIn("ana@example.com")
        let user = try #require(try await world.sesame.storage.listUsers(limit: 1, offset: 0).first)
        let key = P256.Signing.PrivateKey()
        let credential = try await world.sesame.deviceKeys.credentials.register(
            DeviceCredentialRegistration(
                deviceName: "phone", type: "public_key", value: .text(key.publicKey.pemRepresentation),
                deviceID: "1F2E3D4C", clientID: world.application.clientID, userID: user.userID),
            by: .admin(tokenID: "operator"))
        return (user, key, credential)
    }

    static func jwt(_ key: P256.Signing.PrivateKey, kid: String, claims: [String: Any]) throws -> String {
        func part(_ object: [String: Any]) throws -> String {
            SesameAPI.Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
        }
        let input = try part(["alg": "ES256", "typ": "JWT", "kid": kid]) + "." + (try part(claims))
        return input + "." + SesameAPI.Base64URL.encode(Array(try key.signature(for: Array(input.utf8)).rawRepresentation))
    }
}
