import Crypto
import Foundation
import _CryptoExtras

/// A parsed credential public key (COSE_Key, RFC 9052 §7 and WebAuthn §5.8.5).
struct COSEKey: Sendable {
    /// The `alg` member: the only algorithm this key may be used with.
    let algorithm: COSEAlgorithm
    /// The key material, ready to verify signatures.
    let key: VerificationKey
    /// The raw key numbers, for comparison with TPM `pubArea` and certificates.
    let parameters: Parameters

    enum Parameters: Sendable, Equatable {
        case ec2(curve: Int, x: [UInt8], y: [UInt8])
        case okp(curve: Int, x: [UInt8])
        case rsa(n: [UInt8], e: [UInt8])
        case akp(publicKey: [UInt8])
    }

    // COSE key type values (RFC 9053 §7, draft-ietf-cose-dilithium for AKP).
    static let ktyOKP = 1, ktyEC2 = 2, ktyRSA = 3, ktyAKP = 7

    /// Decodes and validates a COSE_Key.
    /// - Throws: ``WebAuthnError/unsupportedAlgorithm`` for algorithms this library cannot verify,
    ///   ``WebAuthnError/malformedPublicKey`` for anything else that is wrong.
    init(cbor value: CBORValue) throws(WebAuthnError) {
        guard let map = value.mapValue, let kty = map[int: 1]?.intValue else {
            throw WebAuthnError.malformedPublicKey.with(detail: "not a map with an integer kty")
        }
        guard let rawAlgorithm = map[int: 3]?.intValue else {
            throw WebAuthnError.malformedPublicKey.with(detail: "missing alg")
        }
        guard let algorithm = COSEAlgorithm(rawValue: rawAlgorithm), algorithm.isVerifiable else {
            throw WebAuthnError.unsupportedAlgorithm.with(detail: "COSE alg \(rawAlgorithm)")
        }
        self.algorithm = algorithm
        (self.key, self.parameters) = try Self.material(kty: kty, algorithm: algorithm, map: map)
    }

    /// Decodes a COSE_Key from its CBOR bytes (for example a stored credential public key).
    init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do { value = try CBORDecoder().decode(bytes[...]) } catch {
            throw WebAuthnError.malformedPublicKey.with(detail: error.reason)
        }
        try self.init(cbor: value)
    }

    private static func material(
        kty: Int,
        algorithm: COSEAlgorithm,
        map: CBORMap
    ) throws(WebAuthnError) -> (VerificationKey, Parameters) {
        switch kty {
        case ktyEC2: return try ec2(algorithm: algorithm, map: map)
        case ktyOKP: return try okp(algorithm: algorithm, map: map)
        case ktyRSA: return try rsa(algorithm: algorithm, map: map)
        case ktyAKP: return try akp(algorithm: algorithm, map: map)
        default: throw WebAuthnError.malformedPublicKey.with(detail: "unknown kty \(kty)")
        }
    }
}
