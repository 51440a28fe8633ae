import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import SesameWebAuthn
import Testing

/// Attacks that try to keep or mint a way into someone else's account.
@Suite("Attacks: account pre-hijacking, device-key minting, passkey management")
struct AccountTakeoverTests {
    /// Attack (pre-hijacking): sign up with a passkey on the victim's address before the victim
    /// ever uses it, and keep a refresh token and a device key for later. An unproven account
    /// gets neither.
    @Test("pre-hijacking: an unverified passkey account gets no refresh token and cannot register a device key")
    func unverifiedAccountGetsNoLastingCredentials() async throws {
        try await Harness.run { h in
            let attacker = try await PasskeyClient(h).signUp(email: "victim@example.com")
            #expect(attacker.refreshToken == nil, "no refresh token for an unproven address")
            let minted = try await h.registerDevice(token: attacker.accessToken, value: TestDeviceKey.p256().publicPEM)
            #expect(minted.status == .forbidden && minted.error?.error == "access_denied")
        }
    }

    /// Attack (pre-hijacking): whatever the attacker made while the account was unproven (a
    /// passkey, an access token, and, from a version that still issued them, a refresh token
    /// and a device key) must die when the victim first proves the address with a code.
    @Test("pre-hijacking: the victim's first code login ends the attacker's passkey, tokens and device keys")
    func verificationEndsEverythingBefore() async throws {
        try await Harness.run { h in
            let device = PasskeyClient(h)
            let attacker = try await device.signUp(email: "victim@example.com")
            let user = try #require(try await h.sesame.storage.user(connection: "email", identifier: "victim@example.com"))
            let family = try await h.seedRefreshToken(user: user, clientID: h.clientID, at: h.clock.now())
            try await h.sesame.storage.saveDeviceCredential(
                DeviceCredential(
                    id: "dcr_attacker", userID: user.userID, clientID: h.clientID, deviceID: "evil", deviceName: "evil",
                    algorithm: .es256, publicKey: [], fingerprint: "", keyBits: 256, createdAt: h.clock.now()))
            h.clock.advance(by: 1)

            let victim = try await h.login(email: "victim@example.com")
            #expect(victim.refreshToken != nil)
            #expect(try await h.get("/userinfo", headers: Harness.bearer(victim.accessToken)).status == .ok)
            #expect(try await h.get("/userinfo", headers: Harness.bearer(attacker.accessToken)).status == .unauthorized)
            #expect(try await device.signIn().status == .forbidden, "the attacker's passkey is gone")
            #expect(try await h.sesame.storage.deviceCredentials(userID: user.userID, clientID: nil).isEmpty)
            let refresh = try await h.post(
                "/oauth/token", ["grant_type": "refresh_token", "client_id": h.clientID, "refresh_token": family])
            #expect(refresh.status == .forbidden, "the attacker's refresh token family is revoked")
        }
    }

    /// Attack: a token an app got for `scope=openid` (say, from a low-trust web app) is used to
    /// register a permanent device key.
    @Test("device-key minting: a token without create:current_user_device_credentials is refused")
    func deviceKeyNeedsScope() async throws {
        try await Harness.run { h in
            let tokens = try await h.login(email: "ana@example.com", scope: "openid")
            let minted = try await h.registerDevice(token: tokens.accessToken, value: TestDeviceKey.p256().publicPEM)
            #expect(minted.status == .forbidden && minted.error?.error == "insufficient_scope")
            let listed = try await h.listDevices(token: tokens.accessToken)
            #expect(listed.status == .forbidden, "reading needs read:current_user_device_credentials")
        }
    }

    /// Attack: app A's token names app B's `client_id`, minting a key that signs in to app B
    /// and outlives the revocation of A's token.
    @Test("device-key minting: a user's token cannot register a key for another application")
    func deviceKeyOnlyForOwnApplication() async throws {
        try await Harness.run { h in
            let other = try await h.seedApplication(name: "Trusted App")
            let tokens = try await h.accountLogin(email: "ana@example.com")
            let minted = try await h.registerDevice(
                token: tokens.accessToken, value: TestDeviceKey.p256().publicPEM, extra: ["client_id": other])
            #expect(minted.status == .forbidden && minted.error?.error == "insufficient_scope")
            #expect(try await h.sesame.storage.deviceCredentials(userID: nil, clientID: other).isEmpty)
        }
    }

    /// Attack: a stolen access token (valid for a day) is used hours after the login to add a
    /// device key. Registration needs a login within the recent window (5 minutes).
    @Test("device-key minting: a login older than the recent window cannot register a key")
    func deviceKeyNeedsRecentLogin() async throws {
        try await Harness.run { h in
            let tokens = try await h.accountLogin(email: "ana@example.com")
            h.clock.advance(by: 301)
            let minted = try await h.registerDevice(token: tokens.accessToken, value: TestDeviceKey.p256().publicPEM)
            #expect(minted.status == .unauthorized && minted.error?.error == "insufficient_user_authentication")
            let refreshed = try await h.post(
                "/oauth/token", ["grant_type": "refresh_token", "client_id": h.clientID, "refresh_token": tokens.refreshToken])
            let again = try await h.registerDevice(
                token: try refreshed.tokens().accessToken, value: TestDeviceKey.p256().publicPEM)
            #expect(again.status == .unauthorized, "a refresh does not make the login recent")
        }
    }

    /// Attack: a token of any scope, or a stale one, removes or renames the user's passkeys.
    @Test("passkey management: changes need the My Account scopes and a recent login")
    func passkeyChangesNeedScopeAndRecentLogin() async throws {
        try await Harness.run { h in
            let device = PasskeyClient(h)
            _ = try await device.signUp(email: "ana@example.com")
            let id = SesameAPI.Base64URL.encode(device.credentialID)
            let narrow = try await h.login(email: "ana@example.com", scope: "openid")
            let listed = try await h.get("/me/passkeys", headers: Harness.bearer(narrow.accessToken))
            #expect(listed.status == .forbidden && listed.error?.error == "insufficient_scope")
            let deleted = try await h.client.execute(
                uri: "/me/passkeys/\(id)", method: .delete, headers: Harness.bearer(narrow.accessToken))
            #expect(deleted.status == .forbidden)
            let full = try await h.accountLogin(email: "ana@example.com")
            h.clock.advance(by: 301)
            let stale = try await h.client.execute(
                uri: "/me/passkeys/\(id)", method: .delete, headers: Harness.bearer(full.accessToken))
            #expect(stale.status == .unauthorized && stale.error?.error == "insufficient_user_authentication")
            #expect(
                try await h.get("/me/passkeys", headers: Harness.bearer(full.accessToken)).status == .ok,
                "reading needs no recent login")
        }
    }
}

extension Harness {
    /// A live refresh token for `user`, as an older version could have issued it; returns its secret.
    func seedRefreshToken(user: User, clientID: String, at now: Date) async throws -> String {
        let secret = "seeded-\(user.id)"
        let storage = sesame.storage
        let hmac = try await SecretHasher(keys: storage.hmacSecrets())
        try await storage.createRefreshToken(
            RefreshToken(
                id: "rt-\(user.id)", familyID: "family-\(user.id)", tokenHash: hmac.hash(secret, purpose: .refreshToken),
                clientID: clientID, userID: user.userID, scope: "openid offline_access", audience: nil, createdAt: now,
                expiresAt: now.addingTimeInterval(86400)))
        return secret
    }

    /// A second application (public unless a secret is given); returns its client id.
    func seedApplication(name: String, secret: String? = nil, callback: String = "https://app.example.com/cb") async throws
        -> String
    {
        let clientID = "app-\(name.lowercased().replacingOccurrences(of: " ", with: "-"))"
        try await sesame.storage.createApplication(
            Application(
                clientID: clientID, clientSecret: secret, name: name, type: secret == nil ? .native : .regular,
                callbacks: [callback], createdAt: Date(timeIntervalSince1970: 0)))
        return clientID
    }
}
