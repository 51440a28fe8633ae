import Crypto
import Foundation
import SesameAPI
import SesameClient
import Testing

/// TouchIDAuth's flow through the SDK against a live server.
@Suite("SesameClient: device-key authentication")
struct DeviceKeyAuthenticationTests {
    struct Presence: UserPresenceVerifier {
        let confirms: Bool
        func confirmPresence(reason: String) async throws -> Bool { confirms }
    }

    static let scope = "openid email offline_access create:current_user_device_credentials"

    @Test(
        "register after a code login, then sign in with the key alone; declined presence and reset stop it",
        arguments: [
            DeviceKey.Algorithm.es256, .rs256,
        ])
    func registerThenSignIn(algorithm: DeviceKey.Algorithm) async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-key-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let store = FileDeviceKeyStore(path: directory + "/device-key.json")
            var flow = DeviceKeyAuthentication(client: client, store: store, presence: Presence(confirms: true))
            flow.algorithm = algorithm
            let session = try await server.signIn(client, scope: Self.scope)
            let key = try await flow.register(accessToken: session.accessToken, deviceName: "laptop")
            #expect(key.credentialID != nil && key.userID?.hasPrefix("email|") == true && key.algorithm == algorithm)
            let mode = (try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o600, "the private key is readable only by its owner")

            let signedIn = try await flow.start()
            #expect(try await client.userInfo(accessToken: signedIn.accessToken).email == "ana@example.com")

            let declined = DeviceKeyAuthentication(client: client, store: store, presence: Presence(confirms: false))
            await #expect(throws: SesameClientError.self) { _ = try await declined.start() }
            try flow.reset()
            await #expect { _ = try await flow.start() } throws: { ($0 as? SesameClientError)?.isNotSignedIn == true }
        }
    }

    /// The seeds' order: with a `registerPublicKey` hook, the first `start()` makes and
    /// registers the key itself, and `authenticate` is a hook the app may wrap.
    @Test("TouchIDAuth's hooks: start registers through registerPublicKey, then authenticates through the hook")
    func touchIDHooks() async throws {
        try await LiveServer.run { server in
            let client = server.client
            let session = try await server.signIn(client, scope: Self.scope)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-key-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let calls = Counter()
            var flow = DeviceKeyAuthentication(
                client: client, store: FileDeviceKeyStore(path: directory + "/device-key.json"),
                presence: Presence(confirms: true))
            flow.registerPublicKey = { pem, deviceID in
                try await client.registerDeviceKey(
                    publicKeyPEM: pem, deviceName: "phone", deviceID: deviceID, accessToken: session.accessToken)
            }
            flow.authenticate = { assertion, scope in
                calls.increment()
                return try await client.login(deviceKeyAssertion: assertion, scope: scope)
            }
            let signedIn = try await flow.start()
            #expect(try await client.userInfo(accessToken: signedIn.accessToken).email == "ana@example.com")
            #expect(calls.count == 1, "the authenticate hook sent the assertion")
        }
    }

    /// The seam the Secure Enclave store uses, exercised on Linux: the store makes the key,
    /// keeps the private half to itself (the saved `DeviceKey` carries only a handle) and signs
    /// every assertion.
    @Test("a store that keeps its keys in hardware makes, registers and signs without handing out the private key")
    func hardwareStore() async throws {
        try await LiveServer.run { server in
            let client = server.client
            let session = try await server.signIn(client, scope: Self.scope)
            let store = HardwareLikeStore()
            let flow = DeviceKeyAuthentication(client: client, store: store, presence: Presence(confirms: true))
            let key = try await flow.register(accessToken: session.accessToken, deviceName: "phone")
            #expect(key.privateKeyPEM.isEmpty && key.hardwareKey != nil, "only a handle is stored")
            let signedIn = try await flow.start()
            #expect(try await client.userInfo(accessToken: signedIn.accessToken).email == "ana@example.com")
            #expect(store.signatures == 1, "the store signed the assertion")
        }
    }

    /// Attack: a token without the device-credential scope (any app's token) mints a key.
    @Test("registering needs the scope for it")
    func registrationNeedsScope() async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            let session = try await server.signIn(client, scope: "openid")
            let errors = ErrorLog()
            var flow = DeviceKeyAuthentication(
                client: client, store: FileDeviceKeyStore(path: "/nonexistent/\(UUID().uuidString)"),
                presence: Presence(confirms: true))
            flow.onError = { errors.append($0) }
            await #expect { _ = try await flow.register(accessToken: session.accessToken, deviceName: "x") } throws: {
                ($0 as? SesameClientError)?.code == "insufficient_scope"
            }
            #expect(errors.count == 1, "onError hears about it")
        }
    }
}

/// Errors an `onError` hook received.
final class ErrorLog: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []
    func append(_ error: any Error) { lock.withLock { errors.append(error) } }
    var count: Int { lock.withLock { errors.count } }
}

/// How many times a hook ran.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}

/// Stands in for the Secure Enclave: private keys live here, keyed by an opaque handle, and
/// never in the `DeviceKey` that gets saved.
final class HardwareLikeStore: DeviceKeyStore, @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [Data: P256.Signing.PrivateKey] = [:]
    private var saved: DeviceKey?
    private var signed = 0

    var signatures: Int { lock.withLock { signed } }

    func load() throws -> DeviceKey? { lock.withLock { saved } }
    func save(_ key: DeviceKey) throws { lock.withLock { saved = key } }
    func delete() throws { lock.withLock { saved = nil } }

    func makeKey(_ algorithm: DeviceKey.Algorithm) throws -> DeviceKey {
        let handle = Data(UUID().uuidString.utf8)
        lock.withLock { keys[handle] = P256.Signing.PrivateKey() }
        return DeviceKey(algorithm: .es256, privateKeyPEM: "", hardwareKey: handle, deviceID: DeviceKey.newDeviceID())
    }

    func publicKeyPEM(of key: DeviceKey) throws -> String { try privateKey(key).publicKey.pemRepresentation }

    func signature(of key: DeviceKey, over input: [UInt8]) throws -> Data {
        let privateKey = try privateKey(key)
        lock.withLock { signed += 1 }
        return try privateKey.signature(for: input).rawRepresentation
    }

    private func privateKey(_ key: DeviceKey) throws -> P256.Signing.PrivateKey {
        guard let handle = key.hardwareKey, let privateKey = lock.withLock({ keys[handle] }) else {
            throw CocoaError(.keyValueValidation)
        }
        return privateKey
    }
}
