import Crypto
import CryptoExtras
import Foundation
import SesameAPI
import SesameCore
import SesameWebAuthn
import Testing

@Suite("Device public keys: parsing and the key policy")
struct DevicePublicKeyTests {
    static let policy = DeviceKeyPolicy()

    @Test("P-256 from SPKI PEM, base64 DER, X9.63 and JWK all give the same key")
    func p256Forms() throws {
        let key = P256.Signing.PrivateKey().publicKey
        let raw = key.rawRepresentation
        let forms = [
            try DevicePublicKey.parse(text: key.pemRepresentation, policy: Self.policy),
            try DevicePublicKey.parse(text: key.derRepresentation.base64EncodedString(), policy: Self.policy),
            try DevicePublicKey.parse(text: key.x963Representation.base64EncodedString(), policy: Self.policy),
            try DevicePublicKey.parse(
                jwk: ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(raw.prefix(32)), "y": Base64URL.encode(raw.suffix(32))],
                policy: Self.policy),
        ]
        for form in forms {
            #expect(form.algorithm == .es256 && form.spkiDER == Array(key.derRepresentation))
        }
    }

    @Test("RSA from PKCS#1 PEM with CR-only lines and from a JWK whose n has its top bit set")
    func rsaForms() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048).publicKey
        let pkcs1 = key.pkcs1DERRepresentation.base64EncodedString()
        let lines = stride(from: 0, to: pkcs1.count, by: 64).map { offset -> String in
            let start = pkcs1.index(pkcs1.startIndex, offsetBy: offset)
            return String(pkcs1[start..<(pkcs1.index(start, offsetBy: 64, limitedBy: pkcs1.endIndex) ?? pkcs1.endIndex)])
        }
        let pem = "-----BEGIN RSA PUBLIC KEY-----\n" + lines.joined(separator: "\r") + "\n-----END RSA PUBLIC KEY-----"
        let fromPEM = try DevicePublicKey.parse(text: pem, policy: Self.policy)
        let primitives = try key.getKeyPrimitives()
        let fromJWK = try DevicePublicKey.parse(
            jwk: ["kty": "RSA", "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent)],
            policy: Self.policy)
        #expect(fromPEM.spkiDER == Array(key.derRepresentation) && fromJWK.spkiDER == fromPEM.spkiDER)
        #expect(fromPEM.algorithm == .rs256 && fromPEM.bits == 2048)
    }

    /// TouchIDAuth's `sub` claim: MD5 of the PKCS#1 bytes as upper-case hex pairs.
    @Test("the fingerprint matches TouchIDAuth's format")
    func fingerprint() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048).publicKey
        let parsed = try DevicePublicKey.parse(text: key.pemRepresentation, policy: Self.policy)
        let expected = Insecure.MD5.hash(data: key.pkcs1DERRepresentation).map { String(format: "%02X", $0) }.joined(
            separator: ":")
        #expect(parsed.fingerprint == expected && parsed.fingerprint.count == 47)
    }

    @Test("RSA sizes: 1024 only with the legacy switch; 2048 to 4096 always")
    func rsaSizes() throws {
        let small = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)).publicKey.pemRepresentation
        #expect(throws: SesameError.self) { try DevicePublicKey.parse(text: small, policy: Self.policy) }
        var legacy = DeviceKeyPolicy()
        legacy.allowRSA1024 = true
        #expect(try DevicePublicKey.parse(text: small, policy: legacy).bits == 1024)
        #expect(!legacy.acceptsRSA(bits: 1536) && !legacy.acceptsRSA(bits: 8192) && legacy.acceptsRSA(bits: 3072))
    }

    @Test("ES256 signatures are checked in JOSE's raw r||s form, and only with the key's algorithm")
    func signatures() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = try DevicePublicKey.parse(text: privateKey.publicKey.pemRepresentation, policy: Self.policy)
        let message = Array("header.payload".utf8)
        let signature = try privateKey.signature(for: message)
        #expect(key.isValidSignature(Array(signature.rawRepresentation), for: message))
        #expect(!key.isValidSignature(Array(signature.derRepresentation), for: message), "DER is not JOSE's form")
        #expect(!key.isValidSignature(Array(signature.rawRepresentation), for: Array("header.other".utf8)))
    }
}
