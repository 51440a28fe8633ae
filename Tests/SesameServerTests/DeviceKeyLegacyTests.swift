import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import SesameWebAuthn
import Testing

/// TouchIDAuth and Lock v1: RSA-1024 keys uploaded as base64 of a PKCS#1 PEM, JWTs without
/// `kid` or `jti` (`iss` = user_id, `sub` = key fingerprint), sent to `/oauth/ro`.
@Suite("Device-key login: legacy /oauth/ro (TouchIDAuth)")
struct DeviceKeyLegacyTests {
    static func legacySettings(_ settings: inout LoginSettings) { settings.deviceKeys.allowRSA1024 = true }

    /// Registers the key the way Lock v1's key uploader does.
    static func enrollTouchID(_ h: Harness, key: TestDeviceKey = SharedKeys.rsa1024) async throws -> EnrolledDevice {
        let tokens = try await h.accountLogin(email: "ana@example.com")
        let value = Data(key.touchIDPEM.utf8).base64EncodedString()
        let response = try await h.registerDevice(
            token: tokens.accessToken, value: value, deviceID: "3C2B1A00-AAAA-BBBB-CCCC-0123456789AB")
        let body = try response.decode(DeviceCredentialBody.self)
        return EnrolledDevice(
            userID: body.userID, accessToken: tokens.accessToken, credentialID: body.id, key: key, deviceID: body.deviceID)
    }

    /// TouchIDAuth's default claims plus Lock's `iss`.
    static func touchIDToken(_ h: Harness, _ device: EnrolledDevice, _ change: (inout [String: Any]) -> Void = { _ in }) -> String
    {
        let now = h.clock.now().epochSeconds
        var claims: [String: Any] = [
            "iss": device.userID, "sub": device.key.fingerprint, "device": "Anas iPhone", "iat": now, "exp": now + 30,
        ]
        change(&claims)
        return device.key.jwt(claims)
    }

    static func ro(
        _ h: Harness, _ token: String?, device: String? = "3C2B1A00-AAAA-BBBB-CCCC-0123456789AB",
        connection: String? = "email"
    ) async throws -> TestResponse {
        try await h.post(
            "/oauth/ro",
            [
                "client_id": h.clientID, "grant_type": GrantType.jwtBearer, "id_token": token, "device": device,
                "connection": connection, "scope": "openid offline_access",
            ])
    }

    @Test("a TouchIDAuth RSA-1024 JWT signs in through /oauth/ro")
    func touchIDLogin() async throws {
        try await Harness.run(configure: Self.legacySettings) { h in
            let device = try await Self.enrollTouchID(h)
            let response = try await Self.ro(h, Self.touchIDToken(h, device))
            #expect(response.status == .ok, "\(response.text)")
            #expect(try response.tokens().refreshToken != nil)
        }
    }

    @Test("the device may be named by its device_name")
    func deviceByName() async throws {
        try await Harness.run(configure: Self.legacySettings) { h in
            let device = try await Self.enrollTouchID(h)
            #expect(try await Self.ro(h, Self.touchIDToken(h, device), device: "Ana's iPhone").status == .ok)
        }
    }

    /// Attack: replaying a captured TouchIDAuth JWT, which has no jti.
    @Test("a legacy JWT without jti is single use by its signed bytes")
    func legacyReplay() async throws {
        try await Harness.run(configure: Self.legacySettings) { h in
            let device = try await Self.enrollTouchID(h)
            let token = Self.touchIDToken(h, device)
            #expect(try await Self.ro(h, token).status == .ok)
            let replay = try await Self.ro(h, token)
            #expect(replay.status == .forbidden && replay.error?.errorDescription.contains("already been used") == true)
        }
    }

    /// Attack: ECDSA signatures are malleable: (r, s) and (r, n - s) both verify, so a replay
    /// check keyed on the whole token could be dodged by re-encoding the signature.
    @Test("ECDSA signature malleability does not bypass the single-use rule")
    func malleableSignature() async throws {
        try await Harness.run { h in
            let device = try await Self.enrollTouchID(h, key: .p256())
            let token = Self.touchIDToken(h, device)
            #expect(try await Self.ro(h, token).status == .ok)
            let parts = token.split(separator: ".").map(String.init)
            let signature = try #require(Base64URL.decode(parts[2]))
            let twin = Array(signature.prefix(32)) + P256Order.negate(Array(signature.suffix(32)))
            let input = Array((parts[0] + "." + parts[1]).utf8)
            let key = try P256.Signing.PublicKey(pemRepresentation: device.key.publicPEM)
            #expect(key.isValidSignature(try .init(rawRepresentation: twin), for: input), "the twin signature is valid")
            let replay = try await Self.ro(h, parts[0] + "." + parts[1] + "." + Base64URL.encode(twin))
            #expect(replay.status == .forbidden && replay.error?.errorDescription.contains("already been used") == true)
        }
    }

    @Test("missing id_token or device: 400 in Auth0's words", arguments: ["id_token", "device"])
    func missingParameters(_ parameter: String) async throws {
        try await Harness.run(configure: Self.legacySettings) { h in
            let device = try await Self.enrollTouchID(h)
            let token = Self.touchIDToken(h, device)
            let response = try await Self.ro(
                h, parameter == "id_token" ? nil : token, device: parameter == "device" ? nil : device.deviceID)
            #expect(response.status == .badRequest)
            #expect(response.error == ErrorBody(error: "invalid_request", errorDescription: "missing \(parameter) parameter"))
        }
    }

    /// Attack: a JWT naming a user in `iss` whose key it was not signed with.
    @Test("iss of another user, a wrong connection or a wrong fingerprint is refused")
    func wrongClaims() async throws {
        try await Harness.run(configure: Self.legacySettings) { h in
            let device = try await Self.enrollTouchID(h)
            _ = try await h.accountLogin(email: "bob@example.com")
            let bobUser = try #require(try await h.sesame.storage.user(connection: "email", identifier: "bob@example.com"))
            let asBob = try await Self.ro(h, Self.touchIDToken(h, device) { $0["iss"] = bobUser.userID })
            #expect(asBob.status == .forbidden && asBob.error?.errorDescription.contains("Unknown device") == true)
            #expect(try await Self.ro(h, Self.touchIDToken(h, device), connection: "sms").status == .forbidden)
            let wrongSub = try await Self.ro(h, Self.touchIDToken(h, device) { $0["sub"] = "00:11" })
            #expect(wrongSub.status == .forbidden && wrongSub.error?.errorDescription.contains("fingerprint") == true)
        }
    }

    /// Attack: TouchIDAuth's 1024-bit keys are refused when the operator has not opted in.
    @Test("without the legacy switch, a TouchIDAuth RSA-1024 key cannot even be registered")
    func rsa1024Off() async throws {
        try await Harness.run { h in
            let tokens = try await h.accountLogin(email: "ana@example.com")
            let value = Data(SharedKeys.rsa1024.touchIDPEM.utf8).base64EncodedString()
            #expect(try await h.registerDevice(token: tokens.accessToken, value: value).status == .badRequest)
        }
    }
}

/// n - s modulo the P-256 group order, for the malleability test.
enum P256Order {
    static let n: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    static func negate(_ s: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            var difference = Int(n[index]) - Int(s[index]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            result[index] = UInt8(difference)
        }
        return result
    }
}
