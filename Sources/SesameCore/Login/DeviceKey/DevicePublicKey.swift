import Crypto
import CryptoExtras
import Foundation

/// A device's public key, parsed and checked against the key policy.
public struct DevicePublicKey: Sendable {
    private enum Backing: Sendable {
        case p256(P256.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    private let backing: Backing
    /// The only algorithm this key verifies.
    public let algorithm: DeviceKeyAlgorithm
    /// Key size in bits.
    public let bits: Int

    /// Parses DER: SubjectPublicKeyInfo (P-256 or RSA), PKCS#1 `RSAPublicKey` (TouchIDAuth's
    /// `RSA PUBLIC KEY`), or a raw X9.63 P-256 point (iOS `SecKeyCopyExternalRepresentation`).
    /// - Throws: 400 for anything else, and for RSA sizes the policy refuses.
    public init(der: [UInt8], policy: DeviceKeyPolicy) throws {
        if let key = (try? P256.Signing.PublicKey(derRepresentation: der))
            ?? (try? P256.Signing.PublicKey(x963Representation: der))
        {
            (backing, algorithm, bits) = (.p256(key), .es256, 256)
            return
        }
        // The unsafe initialiser admits 1024-bit keys; the policy decides below which sizes pass.
        guard let key = try? _RSA.Signing.PublicKey(unsafeDERRepresentation: der) else {
            throw SesameError.invalidRequest("value is not a P-256 or RSA public key.")
        }
        guard policy.acceptsRSA(bits: key.keySizeInBits) else {
            let legacy = policy.allowRSA1024 ? " or 1024" : ""
            throw SesameError.invalidRequest(
                "RSA keys must be 2048 to 4096 bits\(legacy); this key has \(key.keySizeInBits) bits.")
        }
        (backing, algorithm, bits) = (.rsa(key), .rs256, key.keySizeInBits)
    }

    /// Whether `policy` admits this key: every P-256 key, RSA keys of the sizes it allows.
    public func isAdmitted(by policy: DeviceKeyPolicy) -> Bool {
        algorithm == .es256 || policy.acceptsRSA(bits: bits)
    }

    /// The key as DER SubjectPublicKeyInfo, the stored form.
    public var spkiDER: [UInt8] {
        switch backing {
        case .p256(let key): [UInt8](key.derRepresentation)
        case .rsa(let key): [UInt8](key.derRepresentation)
        }
    }

    /// TouchIDAuth's key fingerprint: MD5 over the key bytes the iOS keychain exports
    /// (PKCS#1 for RSA, the X9.63 point for EC), as `AB:CD:…`. An identifier, not a security check.
    public var fingerprint: String {
        let raw: Data
        switch backing {
        case .p256(let key): raw = key.x963Representation
        case .rsa(let key): raw = key.pkcs1DERRepresentation
        }
        return Insecure.MD5.hash(data: raw).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// Checks a JWS signature over `message` with this key's one algorithm: ES256 signatures
    /// are the raw 64-byte `r || s` (RFC 7518 §3.4), RS256 signatures PKCS#1 v1.5 over SHA-256.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch backing {
        case .p256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: message)
        case .rsa(let key):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: message),
                padding: .insecurePKCS1v1_5)
        }
    }
}
