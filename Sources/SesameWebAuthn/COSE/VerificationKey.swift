import Crypto
import Foundation
import _CryptoExtras

/// A public key that can check WebAuthn signatures, from a COSE_Key or an X.509 certificate.
enum VerificationKey: Sendable {
    case p256(P256.Signing.PublicKey)
    case p384(P384.Signing.PublicKey)
    case p521(P521.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PublicKey)
    case rsa(_RSA.Signing.PublicKey)
    case mlDSA65(MLDSA65.PublicKey)
    case mlDSA87(MLDSA87.PublicKey)

    /// Checks `signature` over `message` as `algorithm` prescribes (§6.5.6 signature formats):
    /// ECDSA signatures are ASN.1 DER, RSA signatures raw, EdDSA and ML-DSA raw over the message.
    /// A key/algorithm pairing that does not belong together never verifies.
    func isValidSignature(_ signature: [UInt8], for message: [UInt8], algorithm: COSEAlgorithm) -> Bool {
        switch (self, algorithm) {
        case (.p256(let key), .es256):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: message)
        case (.p384(let key), .es384):
            guard let parsed = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: message)
        case (.p521(let key), .es512):
            guard let parsed = try? P521.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: message)
        case (.ed25519(let key), .edDSA), (.ed25519(let key), .ed25519):
            return key.isValidSignature(signature, for: message)
        case (.rsa(let key), _):
            return Self.isValidRSASignature(signature, for: message, key: key, algorithm: algorithm)
        case (.mlDSA65(let key), .mlDSA65):
            return key.isValidSignature(signature, for: message)
        case (.mlDSA87(let key), .mlDSA87):
            return key.isValidSignature(signature, for: message)
        default:
            return false
        }
    }

    private static func isValidRSASignature(
        _ signature: [UInt8],
        for message: [UInt8],
        key: _RSA.Signing.PublicKey,
        algorithm: COSEAlgorithm
    ) -> Bool {
        let rsaSignature = _RSA.Signing.RSASignature(rawRepresentation: signature)
        let pkcs1 = _RSA.Signing.Padding.insecurePKCS1v1_5
        // PSS here means MGF1 with the same hash and a salt as long as the digest (RFC 8230 §2).
        let pss = _RSA.Signing.Padding.PSS
        switch algorithm {
        case .rs1: return key.isValidSignature(rsaSignature, for: Insecure.SHA1.hash(data: message), padding: pkcs1)
        case .rs256: return key.isValidSignature(rsaSignature, for: SHA256.hash(data: message), padding: pkcs1)
        case .rs384: return key.isValidSignature(rsaSignature, for: SHA384.hash(data: message), padding: pkcs1)
        case .rs512: return key.isValidSignature(rsaSignature, for: SHA512.hash(data: message), padding: pkcs1)
        case .ps256: return key.isValidSignature(rsaSignature, for: SHA256.hash(data: message), padding: pss)
        case .ps384: return key.isValidSignature(rsaSignature, for: SHA384.hash(data: message), padding: pss)
        case .ps512: return key.isValidSignature(rsaSignature, for: SHA512.hash(data: message), padding: pss)
        default: return false
        }
    }
}
