import Crypto
public import Foundation
import SesameAPI
import _CryptoExtras

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
    /// The private key, PEM; empty for a key held in hardware (``hardwareKey``).
    public var privateKeyPEM: String
    /// An opaque handle of a key that never leaves its hardware (a Secure Enclave key's
    /// `dataRepresentation`): only that device's enclave can sign with it, through its
    /// ``DeviceKeyStore``.
    public var hardwareKey: Data?
    /// The device credential's id (the JWT's `kid`), once registered.
    public var credentialID: String?
    /// The user the key signs in as (the JWT's `sub`).
    public var userID: String?
    /// A stable id of this device.
    public var deviceID: String

    /// A key, unregistered until ``credentialID`` and ``userID`` are set.
    public init(algorithm: Algorithm, privateKeyPEM: String, hardwareKey: Data? = nil, deviceID: String) {
        self.algorithm = algorithm
        self.privateKeyPEM = privateKeyPEM
        self.hardwareKey = hardwareKey
        self.deviceID = deviceID
    }

    /// A new software key pair of `algorithm`.
    public static func generate(_ algorithm: Algorithm = .es256) throws -> DeviceKey {
        let pem: String
        switch algorithm {
        case .es256: pem = P256.Signing.PrivateKey().pemRepresentation
        case .rs256: pem = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        }
        return DeviceKey(algorithm: algorithm, privateKeyPEM: pem, deviceID: newDeviceID())
    }

    /// A random id for a device that has no key yet.
    public static func newDeviceID() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16))
    }

    /// The public key, PEM (what `POST /api/v2/device-credentials` takes).
    public func publicKeyPEM() throws -> String {
        switch algorithm {
        case .es256: try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM).publicKey.pemRepresentation
        case .rs256: try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM).publicKey.pemRepresentation
        }
    }

    /// A compact JWS of `claims`, signed with this key (a software key), its `kid` the
    /// credential id.
    public func sign(_ claims: [String: any Sendable]) throws -> String {
        try sign(claims) { try softwareSignature(over: $0) }
    }

    /// A compact JWS of `claims` whose signature `signer` makes over the signing input, for
    /// keys that sign elsewhere (the Secure Enclave).
    public func sign(_ claims: [String: any Sendable], signer: ([UInt8]) throws -> Data) throws -> String {
        let header: [String: Any] = ["alg": algorithm.rawValue, "typ": "JWT", "kid": credentialID ?? ""]
        func part(_ object: [String: Any]) throws -> String {
            Base64URL.encode(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let input = Array((try part(header) + "." + (try part(claims))).utf8)
        return String(decoding: input, as: UTF8.self) + "." + Base64URL.encode(try signer(input))
    }

    /// The JWS signature of `input` with ``privateKeyPEM``: r‖s for ES256, PKCS #1 v1.5 for RS256.
    public func softwareSignature(over input: [UInt8]) throws -> Data {
        switch algorithm {
        case .es256:
            try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM).signature(for: input).rawRepresentation
        case .rs256:
            try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
                .signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation
        }
    }
}

/// Where the device key lives and how it signs: a private file on Linux
/// (``FileDeviceKeyStore``), the Keychain or the Secure Enclave on Apple platforms. A store
/// whose keys never leave their hardware makes and uses them itself; the others take the
/// software defaults of the extension below.
public protocol DeviceKeyStore: Sendable {
    func load() throws -> DeviceKey?
    func save(_ key: DeviceKey) throws
    func delete() throws
    /// A new, unsaved key of `algorithm`.
    func makeKey(_ algorithm: DeviceKey.Algorithm) throws -> DeviceKey
    /// The key's public half, PEM (what Sesame registers).
    func publicKeyPEM(of key: DeviceKey) throws -> String
    /// The JWS signature of `input` with `key`.
    func signature(of key: DeviceKey, over input: [UInt8]) throws -> Data
}

extension DeviceKeyStore {
    /// A software key (``DeviceKey/generate(_:)``).
    public func makeKey(_ algorithm: DeviceKey.Algorithm) throws -> DeviceKey { try DeviceKey.generate(algorithm) }

    /// The public half of the key's ``DeviceKey/privateKeyPEM``.
    public func publicKeyPEM(of key: DeviceKey) throws -> String { try key.publicKeyPEM() }

    /// Signs with the key's ``DeviceKey/privateKeyPEM``.
    public func signature(of key: DeviceKey, over input: [UInt8]) throws -> Data {
        try key.softwareSignature(over: input)
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
