import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SesameAPI
import SesameCore
import Testing

@Suite("Management API: /api/v2/device-credentials")
struct DeviceCredentialsAPITests {
    @Test("a user registers a P-256 PEM key with their access token: 201 with the credential id")
    func registerPEM() async throws {
        try await Harness.run { h in
            let tokens = try await h.accountLogin(email: "ana@example.com")
            let response = try await h.registerDevice(token: tokens.accessToken, value: TestDeviceKey.p256().publicPEM)
            #expect(response.status == .created)
            let body = try response.decode(DeviceCredentialBody.self)
            #expect(body.id.hasPrefix("dcr_") && body.type == "public_key" && body.alg == "ES256")
            #expect(body.userID.hasPrefix("email|") && body.clientID == h.clientID && body.deviceID == "1F2E3D4C")
        }
    }

    @Test("JWK objects (EC and RSA) are accepted, extra JWK members ignored")
    func registerJWK() async throws {
        try await Harness.run { h in
            let tokens = try await h.accountLogin(email: "ana@example.com")
            var ec: [String: Any] = TestDeviceKey.p256().jwk
            ec["ext"] = true
            ec["key_ops"] = ["verify"]
            let first = try await h.registerDevice(token: tokens.accessToken, value: ec, deviceID: "AA01")
            #expect(first.status == .created)
            #expect(try first.decode(DeviceCredentialBody.self).alg == "ES256")
            let rsa = try await h.registerDevice(token: tokens.accessToken, value: SharedKeys.rsa2048.jwk, deviceID: "AA02")
            #expect(rsa.status == .created)
            #expect(try rsa.decode(DeviceCredentialBody.self).alg == "RS256")
        }
    }

    @Test("TouchIDAuth's PKCS#1 PEM with CR-only lines, and Lock v1's base64 of it, are accepted")
    func registerTouchIDForms() async throws {
        try await Harness.run { h in
            let tokens = try await h.accountLogin(email: "ana@example.com")
            let pem = SharedKeys.rsa2048.touchIDPEM
            let plain = try await h.registerDevice(token: tokens.accessToken, value: pem, deviceID: "BB01")
            #expect(plain.status == .created)
            let lock = try await h.registerDevice(
                token: tokens.accessToken, value: Data(pem.utf8).base64EncodedString(), deviceID: "BB02")
            #expect(lock.status == .created)
            #expect(try lock.decode(DeviceCredentialBody.self).fingerprint == SharedKeys.rsa2048.fingerprint)
        }
    }

    /// Attack: a weak 1024-bit key that a well-funded attacker could factor.
    @Test("RSA-1024 is refused unless device_keys.allow_rsa1024 is on")
    func rsa1024Switch() async throws {
        try await Harness.run { h in
            let tokens = try await h.accountLogin(email: "ana@example.com")
            let refused = try await h.registerDevice(token: tokens.accessToken, value: SharedKeys.rsa1024.publicPEM)
            #expect(refused.status == .badRequest)
            #expect(refused.error?.errorDescription.contains("2048 to 4096 bits") == true)
        }
        try await Harness.run(configure: { $0.deviceKeys.allowRSA1024 = true }) { h in
            let tokens = try await h.accountLogin(email: "ana@example.com")
            let accepted = try await h.registerDevice(token: tokens.accessToken, value: SharedKeys.rsa1024.touchIDPEM)
            #expect(accepted.status == .created)
        }
    }

    @Test("GET lists the caller's credentials as a bare array; include_totals pages like Auth0")
    func list() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            let array = try await h.listDevices(token: device.accessToken, query: "?user_id=\(Harness.formEscape(device.userID))")
            #expect(array.status == .ok)
            #expect(try array.decode([DeviceCredentialBody].self).map(\.id) == [device.credentialID])
            let page = try await h.listDevices(token: device.accessToken, query: "?include_totals=true&page=0&per_page=10")
            #expect(try page.decode(DeviceCredentialPageBody.self).total == 1)
            let past = try await h.listDevices(token: device.accessToken, query: "?include_totals=true&page=1&per_page=10")
            #expect(
                try past.decode(DeviceCredentialPageBody.self).deviceCredentials.isEmpty, "auth0-python's pager stops on empty")
            let refreshKind = try await h.listDevices(token: device.accessToken, query: "?type=refresh_token")
            #expect(try refreshKind.decode([DeviceCredentialBody].self).isEmpty)
            for bad in ["?page=-1", "?per_page=0", "?per_page=1001", "?page=x"] {
                let response = try await h.listDevices(token: device.accessToken, query: bad)
                #expect(response.status == .badRequest && response.error?.errorDescription.isEmpty == false, "\(bad)")
            }
        }
    }

    @Test("re-registering the same device_id replaces its key")
    func reRegisterReplaces() async throws {
        try await Harness.run { h in
            let first = try await h.enroll()
            let second = try await h.registerDevice(token: first.accessToken, value: TestDeviceKey.p256().publicPEM)
            #expect(second.status == .created)
            let listed = try await h.listDevices(token: first.accessToken).decode([DeviceCredentialBody].self)
            #expect(listed.count == 1 && listed[0].id != first.credentialID)
            #expect(try await h.deviceLogin(first.assertion(h)).status == .forbidden, "the replaced key no longer signs in")
        }
    }

    @Test("DELETE removes the caller's credential: 204, then 404")
    func delete() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            #expect(try await h.deleteDevice(device.credentialID, token: device.accessToken).status == .noContent)
            #expect(try await h.deleteDevice(device.credentialID, token: device.accessToken).status == .notFound)
        }
    }

    /// Attack: a signed-in user reading or removing another user's keys, or planting a key on
    /// another user's account to sign in as them.
    @Test("a user cannot list, delete or register credentials of another user")
    func otherUsersCredentials() async throws {
        try await Harness.run { h in
            let ana = try await h.enroll("ana@example.com")
            let bob = try await h.enroll("bob@example.com")
            let list = try await h.listDevices(token: bob.accessToken, query: "?user_id=\(Harness.formEscape(ana.userID))")
            #expect(list.status == .forbidden && list.error?.error == "insufficient_scope")
            #expect(try await h.deleteDevice(ana.credentialID, token: bob.accessToken).status == .notFound)
            #expect(try await h.sesame.storage.deviceCredential(id: ana.credentialID) != nil, "ana's key survives")
            let plant = try await h.registerDevice(
                token: bob.accessToken, value: TestDeviceKey.p256().publicPEM, extra: ["user_id": ana.userID])
            #expect(plant.status == .forbidden)
            let own = try await h.listDevices(token: bob.accessToken).decode([DeviceCredentialBody].self)
            #expect(own.map(\.id) == [bob.credentialID], "without user_id a user sees only their own")
        }
    }

    @Test("no token, a forged token or a blocked user's token: 401")
    func unauthenticated() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            #expect(try await h.listDevices(token: nil).status == .unauthorized)
            #expect(try await h.listDevices(token: "sat_forged.AAAA").status == .unauthorized)
            #expect(try await h.listDevices(token: "sadm_guessed").status == .unauthorized)
            let user = try #require(try await h.sesame.storage.user(connection: "email", identifier: "ana@example.com"))
            _ = try await h.sesame.storage.updateUser(id: user.id) { $0.blocked = true }
            #expect(try await h.listDevices(token: device.accessToken).status == .unauthorized)
        }
    }

    @Test("a management token lists every user's credentials, registers for a user and deletes")
    func adminToken() async throws {
        try await Harness.run { h in
            let ana = try await h.enroll("ana@example.com")
            _ = try await h.enroll("bob@example.com", deviceID: "B0B0")
            let admin = try await h.adminToken()
            #expect(try await h.listDevices(token: admin).decode([DeviceCredentialBody].self).count == 2)
            let missingUser = try await h.registerDevice(token: admin, value: TestDeviceKey.p256().publicPEM)
            #expect(missingUser.status == .badRequest && missingUser.error?.errorDescription.contains("user_id") == true)
            let created = try await h.registerDevice(
                token: admin, value: TestDeviceKey.p256().publicPEM, deviceID: "CAFE",
                extra: ["user_id": ana.userID, "client_id": h.clientID])
            #expect(created.status == .created)
            #expect(try await h.deleteDevice(ana.credentialID, token: admin).status == .noContent)
        }
    }

    /// Bad input of any kind is a 4xx with a description, never a 5xx.
    @Test("bad registration input: 400 with error_description", arguments: BadInput.cases)
    func badInput(_ input: BadInput) async throws {
        try await Harness.run { h in
            let tokens = try await h.accountLogin(email: "ana@example.com")
            var body: [String: Any?] = [
                "device_name": "phone", "type": "public_key", "value": TestDeviceKey.p256().publicPEM, "device_id": "AB12",
            ]
            body[input.field] = input.value
            let response = try await h.post(
                "/api/v2/device-credentials", body, headers: Harness.bearer(tokens.accessToken))
            #expect(response.status == .badRequest, "\(input.field): \(response.text)")
            #expect(response.error?.error == "invalid_request" && !(response.error?.errorDescription.isEmpty ?? true))
        }
    }

    @Test("a body that is not JSON: 400")
    func notJSON() async throws {
        try await Harness.run { h in
            let tokens = try await h.accountLogin(email: "ana@example.com")
            let response = try await h.client.execute(
                uri: "/api/v2/device-credentials", method: .post,
                headers: [.authorization: "Bearer \(tokens.accessToken)", .contentType: "application/json"],
                body: .init(string: "{\"value\": "))
            #expect(response.status == .badRequest && response.error != nil)
        }
    }
}

struct BadInput: Sendable, CustomStringConvertible {
    let field: String
    let value: (any Sendable)?
    var description: String { "\(field)=\(value.map { "\($0)" } ?? "nil")" }

    static let cases: [BadInput] = [
        BadInput(field: "type", value: nil), BadInput(field: "type", value: "refresh_token"),
        BadInput(field: "type", value: 7), BadInput(field: "device_name", value: nil),
        BadInput(field: "device_name", value: ["x"]), BadInput(field: "device_id", value: nil),
        BadInput(field: "device_id", value: "has spaces"), BadInput(field: "device_id", value: String(repeating: "A", count: 65)),
        BadInput(field: "value", value: nil), BadInput(field: "value", value: "not a key"),
        BadInput(field: "value", value: 42),
        BadInput(field: "value", value: "-----BEGIN PUBLIC KEY-----\n!!!\n-----END PUBLIC KEY-----"),
        BadInput(field: "value", value: ["kty": "oct", "k": "c2VjcmV0"]),
        BadInput(field: "value", value: ["kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"]),
        BadInput(field: "value", value: ["kty": "EC", "crv": "P-256", "x": "AA", "y": "AA", "d": "AA"]),
        BadInput(field: "client_id", value: 42),
    ]
}
