import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import SesameWebAuthn

/// A device's key pair, as an app would hold it: signs assertions and exports its public key.
struct TestDeviceKey: Sendable {
    enum Backing: Sendable {
        case p256(P256.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    let backing: Backing

    static func p256() -> TestDeviceKey { TestDeviceKey(backing: .p256(P256.Signing.PrivateKey())) }
    static func rsa(bits: Int = 2048) throws -> TestDeviceKey {
        TestDeviceKey(backing: .rsa(try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: bits))))
    }

    var alg: String {
        switch backing {
        case .p256: "ES256"
        case .rsa: "RS256"
        }
    }

    /// SubjectPublicKeyInfo PEM.
    var publicPEM: String {
        switch backing {
        case .p256(let key): key.publicKey.pemRepresentation
        case .rsa(let key): key.publicKey.pemRepresentation
        }
    }

    /// TouchIDAuth's form: PKCS#1 `RSA PUBLIC KEY`, 64-column lines ended by a bare CR.
    var touchIDPEM: String {
        guard case .rsa(let key) = backing else { return publicPEM }
        let body = key.publicKey.pkcs1DERRepresentation.base64EncodedString()
        var lines: [String] = []
        var rest = Substring(body)
        while !rest.isEmpty { lines.append(String(rest.prefix(64))); rest = rest.dropFirst(64) }
        return "-----BEGIN RSA PUBLIC KEY-----\n" + lines.joined(separator: "\r") + "\n-----END RSA PUBLIC KEY-----"
    }

    var jwk: [String: String] {
        switch backing {
        case .p256(let key):
            let raw = key.publicKey.rawRepresentation
            return ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(raw.prefix(32)), "y": Base64URL.encode(raw.suffix(32))]
        case .rsa(let key):
            let primitives = try! key.publicKey.getKeyPrimitives()
            return ["kty": "RSA", "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent)]
        }
    }

    /// TouchIDAuth's `sub`: MD5 of the raw key bytes as `AB:CD:…`.
    var fingerprint: String {
        let raw: Data
        switch backing {
        case .p256(let key): raw = key.publicKey.x963Representation
        case .rsa(let key): raw = key.publicKey.pkcs1DERRepresentation
        }
        return Insecure.MD5.hash(data: raw).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    func sign(_ input: [UInt8]) -> [UInt8] {
        switch backing {
        case .p256(let key): return Array(try! key.signature(for: input).rawRepresentation)
        case .rsa(let key):
            return Array(try! key.signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    /// A compact JWS of `claims` under `header` (alg defaults to the key's), signed with this key.
    func jwt(_ claims: [String: Any], header: [String: Any] = [:]) -> String {
        var fullHeader: [String: Any] = ["alg": alg, "typ": "JWT"]
        fullHeader.merge(header) { $1 }
        let input = TestJWT.encode(fullHeader) + "." + TestJWT.encode(claims)
        return input + "." + Base64URL.encode(sign(Array(input.utf8)))
    }
}

enum TestJWT {
    static func encode(_ object: [String: Any]) -> String {
        Base64URL.encode(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// A token with any signature bytes (for `alg: none` and HMAC forgeries).
    static func unsigned(header: [String: Any], claims: [String: Any], signature: [UInt8] = []) -> String {
        encode(header) + "." + encode(claims) + "." + Base64URL.encode(signature)
    }
}

/// A signed-in user with a registered device key.
struct EnrolledDevice {
    let userID: String
    let accessToken: String
    let credentialID: String
    let key: TestDeviceKey
    let deviceID: String

    /// Claims for an RFC 7523 assertion now, which each test then bends.
    func claims(_ h: Harness, jti: String = UUID().uuidString) -> [String: Any] {
        let now = h.clock.now().epochSeconds
        return ["sub": userID, "aud": h.sesame.settings.issuer, "iat": now, "exp": now + 30, "jti": jti]
    }

    func assertion(_ h: Harness, _ change: (inout [String: Any]) -> Void = { _ in }) -> String {
        var claims = claims(h)
        change(&claims)
        return key.jwt(claims, header: ["kid": credentialID])
    }
}

extension Harness {
    /// Signs `email` in with a code and registers `key` for the default app with the user's token.
    func enroll(_ email: String = "ana@example.com", key: TestDeviceKey = .p256(), deviceID: String = "1F2E3D4C")
        async throws -> EnrolledDevice
    {
        let tokens = try await accountLogin(email: email)
        let registered = try await registerDevice(token: tokens.accessToken, value: key.publicPEM, deviceID: deviceID)
        guard registered.status == .created else { throw HarnessError("register failed: \(registered.text)") }
        let body = try registered.decode(DeviceCredentialBody.self)
        return EnrolledDevice(
            userID: body.userID, accessToken: tokens.accessToken, credentialID: body.id, key: key, deviceID: deviceID)
    }

    func registerDevice(token: String?, value: Any?, deviceID: String? = "1F2E3D4C", extra: [String: Any?] = [:])
        async throws -> TestResponse
    {
        var body: [String: Any?] = ["device_name": "Ana's iPhone", "type": "public_key", "value": value, "device_id": deviceID]
        body.merge(extra) { $1 }
        return try await post("/api/v2/device-credentials", body, headers: Self.bearer(token))
    }

    func listDevices(token: String?, query: String = "") async throws -> TestResponse {
        try await get("/api/v2/device-credentials" + query, headers: Self.bearer(token))
    }

    func deleteDevice(_ id: String, token: String?) async throws -> TestResponse {
        try await client.execute(uri: "/api/v2/device-credentials/\(id)", method: .delete, headers: Self.bearer(token))
    }

    static func bearer(_ token: String?) -> HTTPFields {
        token.map { [.authorization: "Bearer \($0)"] } ?? [:]
    }

    /// `POST /oauth/token` with the JWT-bearer grant.
    func deviceLogin(_ assertion: String?, scope: String = "openid profile email") async throws -> TestResponse {
        try await post(
            "/oauth/token",
            ["grant_type": GrantType.jwtBearer, "client_id": clientID, "assertion": assertion, "scope": scope])
    }

    /// A management token, as `sesame admin tokens create` makes one.
    func adminToken() async throws -> String {
        try await sesame.deviceKeys.adminTokens.create(name: "test", at: clock.now()).token
    }
}

/// Keys are slow to generate in debug builds; tests share these.
enum SharedKeys {
    static let rsa2048 = try! TestDeviceKey.rsa(bits: 2048)
    static let rsa1024 = try! TestDeviceKey.rsa(bits: 1024)
}
