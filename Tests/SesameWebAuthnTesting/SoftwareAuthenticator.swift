public import Crypto
import Foundation
import SesameWebAuthn
public import _CryptoExtras

/// A software authenticator that makes real ES256, EdDSA and RS256 credentials for tests.
public struct SoftwareAuthenticator {
    public enum Key {
        case es256(P256.Signing.PrivateKey)
        case edDSA(Curve25519.Signing.PrivateKey)
        case rs256(_RSA.Signing.PrivateKey)
    }

    public let key: Key

    /// Wraps an existing private key.
    public init(key: Key) {
        self.key = key
    }

    public static func es256() -> SoftwareAuthenticator { .init(key: .es256(P256.Signing.PrivateKey())) }
    public static func edDSA() -> SoftwareAuthenticator { .init(key: .edDSA(Curve25519.Signing.PrivateKey())) }
    public static func rs256() throws -> SoftwareAuthenticator {
        .init(key: .rs256(try _RSA.Signing.PrivateKey(keySize: .bits2048)))
    }

    public var algorithm: Int {
        switch key {
        case .es256: -7
        case .edDSA: -8
        case .rs256: -257
        }
    }

    /// The credential public key as a COSE_Key.
    public var coseKey: TestCBOR {
        get throws {
            switch key {
            case .es256(let key):
                let raw = Array(key.publicKey.rawRepresentation)
                return .map([
                    (.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
                    (.int(-2), .bytes(Array(raw[0..<32]))), (.int(-3), .bytes(Array(raw[32..<64]))),
                ])
            case .edDSA(let key):
                return .map([
                    (.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)),
                    (.int(-2), .bytes(Array(key.publicKey.rawRepresentation))),
                ])
            case .rs256(let key):
                let primitives = try key.publicKey.getKeyPrimitives()
                return .map([
                    (.int(1), .int(3)), (.int(3), .int(-257)),
                    (.int(-1), .bytes(Array(primitives.modulus))), (.int(-2), .bytes(Array(primitives.publicExponent))),
                ])
            }
        }
    }

    /// Signs `message` as WebAuthn expects: DER ECDSA, raw Ed25519, PKCS#1 v1.5 RSA.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        switch key {
        case .es256(let key): Array(try key.signature(for: message).derRepresentation)
        case .edDSA(let key): Array(try key.signature(for: message))
        case .rs256(let key):
            Array(try key.signature(for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }
}
