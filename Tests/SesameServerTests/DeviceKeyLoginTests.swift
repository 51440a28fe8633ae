import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

@Suite("Device-key login: POST /oauth/token, JWT-bearer grant")
struct DeviceKeyLoginTests {
    @Test("a P-256 device key signs in and gets tokens for its user")
    func es256Login() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let response = try await h.deviceLogin(device.assertion(h), scope: "openid profile email offline_access")
            #expect(response.status == .ok, "\(response.text)")
            let tokens = try response.tokens()
            #expect(tokens.idToken != nil && tokens.refreshToken != nil)
            let info = try await h.get("/userinfo", headers: Harness.bearer(tokens.accessToken))
            #expect(info.status == .ok && info.text.contains(device.userID))
            let user = try #require(try await h.sesame.storage.user(connection: "email", identifier: "ana@example.com"))
            #expect(user.loginsCount == 2, "the shared login step recorded it")
        }
    }

    @Test("an RSA-2048 device key signs in with RS256")
    func rs256Login() async throws {
        try await Harness.run { h in
            let device = try await h.enroll(key: SharedKeys.rsa2048)
            #expect(try await h.deviceLogin(device.assertion(h)).status == .ok)
        }
    }

    @Test("a JWK-registered key signs in")
    func jwkLogin() async throws {
        try await Harness.run { h in
            let tokens = try await h.accountLogin(email: "ana@example.com")
            let key = TestDeviceKey.p256()
            let registered = try await h.registerDevice(token: tokens.accessToken, value: key.jwk)
            let body = try registered.decode(DeviceCredentialBody.self)
            let device = EnrolledDevice(
                userID: body.userID, accessToken: tokens.accessToken, credentialID: body.id, key: key, deviceID: body.deviceID)
            #expect(try await h.deviceLogin(device.assertion(h)).status == .ok)
        }
    }

    @Test("device clocks may be 30 s off either way")
    func clockSkew() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let now = h.clock.now().epochSeconds
            let late = device.assertion(h) {
                $0["iat"] = now - 50; $0["exp"] = now - 20
            }
            #expect(try await h.deviceLogin(late).status == .ok, "expired 20 s ago: within skew")
            let early = device.assertion(h) {
                $0["iat"] = now + 25; $0["exp"] = now + 55
            }
            #expect(try await h.deviceLogin(early).status == .ok, "issued 25 s ahead: within skew")
        }
    }

    @Test("an audience of the token endpoint or the issuer without slash is accepted; others are not")
    func audience() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let issuer = h.sesame.settings.issuer
            #expect(try await h.deviceLogin(device.assertion(h) { $0["aud"] = issuer + "oauth/token" }).status == .ok)
            #expect(try await h.deviceLogin(device.assertion(h) { $0["aud"] = [String(issuer.dropLast())] }).status == .ok)
            let other = try await h.deviceLogin(device.assertion(h) { $0["aud"] = "https://evil.example/" })
            #expect(other.status == .forbidden && other.error?.errorDescription.contains("aud") == true)
            let none = try await h.deviceLogin(device.assertion(h) { $0["aud"] = nil })
            #expect(none.status == .forbidden)
        }
    }

    @Test("the grant must be enabled for the application")
    func grantNotAllowed() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            _ = try await h.sesame.storage.updateApplication(clientID: h.clientID) {
                $0.grantTypes.removeAll { $0 == GrantType.jwtBearer }
            }
            let response = try await h.deviceLogin(device.assertion(h))
            #expect(response.status == .forbidden && response.error?.error == "unauthorized_client")
        }
    }

    @Test(
        "missing or malformed assertions: 4xx with a description, never 5xx",
        arguments: [
            nil, "", "abc", "a.b.c", "a.b", "....", String(repeating: "A", count: 9000),
            "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOjF9.AAAA", "eyJ9.e30.AA",
        ])
    func malformed(_ assertion: String?) async throws {
        try await Harness.run { h in
            let response = try await h.deviceLogin(assertion)
            #expect((400..<500).contains(response.status.code), "\(response.status)")
            #expect(!(response.error?.errorDescription.isEmpty ?? true))
        }
    }

    @Test("every refusal is audited")
    func auditsFailures() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let now = h.clock.now().epochSeconds
            _ = try await h.deviceLogin(
                device.assertion(h) {
                    $0["iat"] = now - 3630; $0["exp"] = now - 3600
                })
            let events = try await h.sesame.storage.recentAuditEvents(limit: 10)
            let refusal = try #require(events.first { $0.type == "device_key_refused" })
            #expect(refusal.userID == device.userID && refusal.clientID == h.clientID && refusal.detail.contains("expired"))
        }
    }

    @Test("the login is audited as a device-key login")
    func auditsSuccess() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            _ = try await h.deviceLogin(device.assertion(h))
            let events = try await h.sesame.storage.recentAuditEvents(limit: 10)
            #expect(events.contains { $0.type == "login" && $0.detail == "device_key" && $0.userID == device.userID })
        }
    }
}
