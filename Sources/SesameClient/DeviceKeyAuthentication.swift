import Crypto
public import Foundation
public import SesameAPI
import _CryptoExtras

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A device's key: the private key, and the credential Sesame registered it as.
public struct DeviceKey: Codable, Sendable, Equatable {
    /// How the key signs.
    public enum Algorithm: String, Codable, Sendable {
        /// P-256 (what the Secure Enclave and Android Keystore hold); the default.
        case es256 = "ES256"
        /// RSA 2048 (what TouchIDAuth made).
        case rs256 = "RS256"
    }

    public var algorithm: Algorithm
    /// The private key, PEM.
    public var privateKeyPEM: String
    /// The device credential's id (the JWT's `kid`), once registered.
    public var credentialID: String?
    /// The user the key signs in as (the JWT's `sub`).
    public var userID: String?
    /// A stable id of this device.
    public var deviceID: String

    /// A new key pair of `algorithm`.
    public static func generate(_ algorithm: Algorithm = .es256) throws -> DeviceKey {
        let pem: String
        switch algorithm {
        case .es256: pem = P256.Signing.PrivateKey().pemRepresentation
        case .rs256: pem = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        }
        let deviceID = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)
        return DeviceKey(algorithm: algorithm, privateKeyPEM: pem, credentialID: nil, userID: nil, deviceID: String(deviceID))
    }

    /// The public key, PEM (what `POST /api/v2/device-credentials` takes).
    public func publicKeyPEM() throws -> String {
        switch algorithm {
        case .es256: try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM).publicKey.pemRepresentation
        case .rs256: try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM).publicKey.pemRepresentation
        }
    }

    /// A compact JWS of `claims`, signed with this key, its `kid` the credential id.
    public func sign(_ claims: [String: any Sendable]) throws -> String {
        let header: [String: Any] = ["alg": algorithm.rawValue, "typ": "JWT", "kid": credentialID ?? ""]
        func part(_ object: [String: Any]) throws -> String {
            Base64URL.encode(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let input = Array((try part(header) + "." + (try part(claims))).utf8)
        let signature: Data
        switch algorithm {
        case .es256:
            signature = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM).signature(for: input).rawRepresentation
        case .rs256:
            signature = try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
                .signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation
        }
        return String(decoding: input, as: UTF8.self) + "." + Base64URL.encode(signature)
    }
}

/// Where the device key lives: the Secure Enclave or Keychain on Apple platforms, a private
/// file on Linux (``FileDeviceKeyStore``).
public protocol DeviceKeyStore: Sendable {
    func load() throws -> DeviceKey?
    func save(_ key: DeviceKey) throws
    func delete() throws
}

/// Asks the person whether it is them before the key signs (Touch ID / Face ID on Apple
/// platforms, ``TerminalPresenceVerifier`` at a terminal).
public protocol UserPresenceVerifier: Sendable {
    /// True when the person confirmed.
    func confirmPresence(reason: String) async throws -> Bool
}

/// TouchIDAuth's flow on Sesame, with its steps and hooks: check presence → a key exists? else
/// generate one and `registerPublicKey` → build the payload (`jwtPayload`) → sign →
/// `authenticate`; any failure goes to `onError` as well as being thrown. ``reset()`` removes
/// the key.
public struct DeviceKeyAuthentication: Sendable {
    /// Registers a new key's public half (PEM) for the device id and answers the credential
    /// (TouchIDAuth's `registerPublicKey`). ``register(accessToken:deviceName:)`` does it with a
    /// signed-in user's token; set this to register from ``start(scope:)`` instead.
    public typealias PublicKeyRegistrar =
        @Sendable (_ publicKeyPEM: String, _ deviceID: String) async throws
        -> DeviceCredentialBody

    let client: SesameClient
    let store: any DeviceKeyStore
    let presence: any UserPresenceVerifier
    /// Called by ``start(scope:)`` when the device has no registered key; nil: no key is an error.
    public var registerPublicKey: PublicKeyRegistrar?
    /// Changes the claims before signing (TouchIDAuth's `jwtPayload`); the defaults are `sub`,
    /// `aud`, `iat`, `exp` (30 s) and `jti`.
    public var jwtPayload: @Sendable ([String: any Sendable]) -> [String: any Sendable] = { $0 }
    /// Sends the signed assertion and answers the tokens (TouchIDAuth's `authenticate`); by
    /// default the JWT-bearer grant of this client.
    public var authenticate: @Sendable (_ assertion: String, _ scope: String) async throws -> Credentials
    /// Told about every failure (TouchIDAuth's `onError`).
    public var onError: @Sendable (any Error) -> Void = { _ in }
    /// The algorithm of a key made here.
    public var algorithm: DeviceKey.Algorithm = .es256

    /// A flow over `client`, keeping the key in `store`, asking `presence` before each use.
    public init(client: SesameClient, store: any DeviceKeyStore, presence: any UserPresenceVerifier) {
        self.client = client
        self.store = store
        self.presence = presence
        authenticate = { assertion, scope in try await client.login(deviceKeyAssertion: assertion, scope: scope) }
    }

    /// Registers this device's key (made now if there is none) for the signed-in user of
    /// `accessToken`. The token needs `create:current_user_device_credentials` and a login of
    /// the last few minutes.
    @discardableResult
    public func register(accessToken: String, deviceName: String) async throws -> DeviceKey {
        try await reporting {
            try await enroll(try store.load() ?? DeviceKey.generate(algorithm)) { pem, deviceID in
                try await client.registerDeviceKey(
                    publicKeyPEM: pem, deviceName: deviceName, deviceID: deviceID, accessToken: accessToken)
            }
        }
    }

    /// Signs in with the device's key, registering a new one through ``registerPublicKey``
    /// when there is none.
    /// - Throws: ``SesameClientError/isNotSignedIn`` when no key is registered and no
    ///   registrar is set.
    public func start(scope: String = SesameClient.defaultScope) async throws -> Credentials {
        try await reporting {
            guard try await presence.confirmPresence(reason: "Sign in to \(client.domain.host ?? "Sesame")") else {
                throw SesameClientError.presenceDeclined
            }
            let key = try await registeredKey()
            guard let userID = key.userID else { throw SesameClientError.notSignedIn }
            let now = Int(Date().timeIntervalSince1970)
            let claims: [String: any Sendable] = [
                "sub": userID, "aud": try await client.issuer(), "iat": now, "exp": now + 30, "jti": UUID().uuidString,
            ]
            return try await authenticate(try key.sign(jwtPayload(claims)), scope)
        }
    }

    /// Forgets the key (TouchIDAuth's `reset`); its credential stays on the server until deleted.
    public func reset() throws {
        try store.delete()
    }

    /// The stored key when it is registered, else a new one registered now.
    private func registeredKey() async throws -> DeviceKey {
        if let key = try store.load(), key.credentialID != nil { return key }
        guard let registerPublicKey else { throw SesameClientError.notSignedIn }
        return try await enroll(try DeviceKey.generate(algorithm), with: registerPublicKey)
    }

    /// Registers `key` through `registrar` and stores it with its credential.
    private func enroll(_ key: DeviceKey, with registrar: PublicKeyRegistrar) async throws -> DeviceKey {
        var key = key
        let credential = try await registrar(try key.publicKeyPEM(), key.deviceID)
        key.credentialID = credential.id
        key.userID = credential.userID
        try store.save(key)
        return key
    }

    private func reporting<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            onError(error)
            throw error
        }
    }
}

extension SesameClient {
    /// Registers a device's public key for the user of `accessToken` (Auth0's
    /// `POST /api/v2/device-credentials`).
    public func registerDeviceKey(publicKeyPEM: String, deviceName: String, deviceID: String, accessToken: String)
        async throws -> DeviceCredentialBody
    {
        let body: [String: String?] = [
            "device_name": deviceName, "type": "public_key", "value": publicKeyPEM, "device_id": deviceID,
        ]
        return try transport.decode(
            DeviceCredentialBody.self, try await transport.post("/api/v2/device-credentials", body, bearer: accessToken))
    }

    /// Signs in with a device key's signed assertion (the RFC 7523 JWT-bearer grant).
    public func login(deviceKeyAssertion: String, scope: String = defaultScope) async throws -> Credentials {
        try await tokens([
            "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "client_id": clientID,
            "assertion": deviceKeyAssertion, "scope": scope,
        ])
    }

    /// The server's issuer, from its discovery document (a device assertion's `aud`).
    public func issuer() async throws -> String {
        try await verifier.issuerName()
    }
}

/// A device key in a JSON file readable only by its owner (0600), for Linux and the CLI.
public struct FileDeviceKeyStore: DeviceKeyStore {
    /// The file.
    public let path: String

    /// A store at `path`.
    public init(path: String) {
        self.path = path
    }

    public func load() throws -> DeviceKey? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try JSONDecoder().decode(DeviceKey.self, from: data)
    }

    public func save(_ key: DeviceKey) throws {
        try PrivateFile.write(try JSONEncoder().encode(key), to: path)
    }

    public func delete() throws {
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }
}

/// Asks `Confirm it's you [y/N]` on the terminal; only `y` or `yes` confirms.
public struct TerminalPresenceVerifier: UserPresenceVerifier {
    /// Creates the verifier.
    public init() {}

    public func confirmPresence(reason: String) async throws -> Bool {
        FileHandle.standardOutput.write(Data("Confirm it's you [y/N] ".utf8))
        let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
        return answer == "y" || answer == "yes"
    }
}

/// Files that hold secrets (sessions, device keys, software passkeys): written 0600 in a 0700
/// directory, to a temporary file renamed into place, so they are never readable by others
/// and a crash never leaves half a file.
public enum PrivateFile {
    /// Replaces the file at `path` with `data`.
    public static func write(_ data: Data, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: NSNumber(value: Int16(0o700))])
        let temporary = path + ".tmp"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: data, attributes: [.posixPermissions: NSNumber(value: Int16(0o600))])
        else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary]) }
        guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
    }
}
