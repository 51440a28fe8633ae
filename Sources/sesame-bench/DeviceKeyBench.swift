import ArgumentParser
import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import SesameAPI
import SesameCore
import SesameWebAuthn

/// `sesame-bench device-key`: complete device-key logins over HTTP against a real server
/// process (sign a fresh ES256 assertion, `POST /oauth/token` with the JWT-bearer grant, get
/// an RS256 id_token back), reported against the RSA-2048 signing bound measured in the same run.
struct DeviceKeyBench: LoadBenchmark {
    static let configuration = CommandConfiguration(
        commandName: "device-key",
        abstract: "Complete device-key logins per second (sign an assertion + JWT-bearer token grant).")

    @OptionGroup var load: LoadOptions

    func measure() async throws -> Report {
        try await HTTPBench.measure(kind: "device-key", load) { target in
            let devices = try await BenchDevice.enroll(count: load.concurrency, target: target)
            let (base, clientID) = (target.base, target.clientID)
            let connections = try await target.connections(count: load.concurrency)
            let stock = try await AssertionStock.signed(for: devices, logins: Self.loginsToStock(load))
            return { worker, _ in
                let assertion = try stock.take(worker) ?? devices[worker].assertion()
                return try await devices[worker].login(
                    assertion: assertion, base: base, clientID: clientID, client: connections[worker])
            }
        }
    }

    /// How many logins to sign assertions for before the load: at most 4,000 a second (twice
    /// the most this machine's floor has reached) for the warm-up and the measured seconds,
    /// and half that for the run at half the rate.
    static func loginsToStock(_ load: LoadOptions) -> Int {
        4_000 * (1 + load.duration) + (load.halfRate ? 2_000 * load.duration : 0)
    }
}

/// One benchmark user with a P-256 device key registered through the Management API.
struct BenchDevice: Sendable {
    let userID: String
    let credentialID: String
    let key: P256.Signing.PrivateKey
    let audience: String

    /// Signs each user in once with an email code (outside the measured time) and registers a key.
    static func enroll(count: Int, target: BenchTarget) async throws -> [BenchDevice] {
        let generator = LoadGenerator(bases: target.bases, clientID: target.clientID, codes: target.codes)
        let issuer = try await Self.issuer(target: target)
        var devices: [BenchDevice] = []
        for index in 0..<count {
            let email = "device-\(index)-\(UInt32.random(in: 0...UInt32.max))@example.com"
            guard
                let body = try await generator.signIn(
                    email: email, scope: "openid create:current_user_device_credentials", client: target.client),
                let tokens = try? JSONDecoder().decode([String: JSONField].self, from: Data(body)),
                case .text(let accessToken)? = tokens["access_token"]
            else { throw BenchError("enrolment sign-in failed for \(email)") }
            devices.append(try await register(accessToken: accessToken, index: index, issuer: issuer, target: target))
        }
        return devices
    }

    /// The assertion's `aud`: the server's issuer, from discovery (it need not be the URL we dial).
    private static func issuer(target: BenchTarget) async throws -> String {
        let response = try await target.client.execute(
            HTTPClientRequest(url: target.base + "/.well-known/openid-configuration"), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard let document = try? JSONDecoder().decode([String: JSONField].self, from: Data(body.readableBytesView)),
            case .text(let issuer)? = document["issuer"]
        else { throw BenchError("no issuer in the discovery document") }
        return issuer
    }

    private static func register(accessToken: String, index: Int, issuer: String, target: BenchTarget) async throws
        -> BenchDevice
    {
        let key = P256.Signing.PrivateKey()
        let registration = [
            "device_name": "bench \(index)", "type": "public_key", "value": key.publicKey.pemRepresentation,
            "device_id": String(format: "BE0C%04X", index),
        ]
        let response = try await BenchHTTP.post(
            target.base + "/api/v2/device-credentials", registration, headers: [("authorization", "Bearer \(accessToken)")],
            client: target.client)
        guard response.status == .created,
            let credential = try? JSONDecoder().decode([String: String].self, from: Data(response.body)),
            let id = credential["id"], let userID = credential["user_id"]
        else { throw BenchError("registration failed: \(String(decoding: response.body, as: UTF8.self))") }
        return BenchDevice(userID: userID, credentialID: id, key: key, audience: issuer)
    }

    /// One complete login: `assertion` (a fresh one, never used before) exchanged for tokens.
    func login(assertion: String, base: String, clientID: String, client: some BenchPoster) async throws -> Bool {
        let body = [
            "grant_type": GrantType.jwtBearer, "client_id": clientID, "assertion": assertion, "scope": "openid profile email",
        ]
        return try await BenchHTTP.post(base + "/oauth/token", body, client: client).status == .ok
    }

    /// A fresh assertion (a new jti) signed now, valid for `lifetime` seconds.
    func assertion(lifetime: Int64 = 30) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let header = #"{"alg":"ES256","kid":"\#(credentialID)","typ":"JWT"}"#
        let claims = AssertionClaims(sub: userID, aud: audience, iat: now, exp: now + lifetime, jti: UUID().uuidString)
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(try JSONEncoder().encode(claims))
        let signature = try key.signature(for: Array(input.utf8)).rawRepresentation
        return input + "." + Base64URL.encode(signature)
    }

    private struct AssertionClaims: Encodable {
        let sub: String
        let aud: String
        let iat: Int64
        let exp: Int64
        let jti: String
    }
}

/// A JSON object member: the bench reads only the strings.
private enum JSONField: Decodable {
    case text(String), other

    init(from decoder: any Decoder) throws {
        self = (try? decoder.singleValueContainer().decode(String.self)).map(JSONField.text) ?? .other
    }
}
