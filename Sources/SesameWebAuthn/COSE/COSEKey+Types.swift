import Crypto
import Foundation
import _CryptoExtras

// Per-kty parsing. Spec guarantees (§5.8.5): ES256 keys use crv 1 (P-256) and uncompressed
// points, ES384 crv 2, ES512 crv 3, EdDSA crv 6 (Ed25519). Mismatches are malformed keys.
extension COSEKey {
    static func ec2(algorithm: COSEAlgorithm, map: CBORMap) throws(WebAuthnError) -> (VerificationKey, Parameters) {
        guard let curve = map[int: -1]?.intValue, let x = map[int: -2]?.bytesValue, let y = map[int: -3]?.bytesValue
        else { throw WebAuthnError.malformedPublicKey.with(detail: "EC2 key needs crv, x and y byte strings") }
        let parameters = Parameters.ec2(curve: curve, x: x, y: y)
        do {
            switch (algorithm, curve) {
            case (.es256, 1) where x.count == 32 && y.count == 32:
                return (.p256(try P256.Signing.PublicKey(rawRepresentation: x + y)), parameters)
            case (.es384, 2) where x.count == 48 && y.count == 48:
                return (.p384(try P384.Signing.PublicKey(rawRepresentation: x + y)), parameters)
            case (.es512, 3) where x.count == 66 && y.count == 66:
                return (.p521(try P521.Signing.PublicKey(rawRepresentation: x + y)), parameters)
            default:
                throw WebAuthnError.malformedPublicKey.with(detail: "EC2 alg \(algorithm.rawValue) with crv \(curve)")
            }
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw WebAuthnError.malformedPublicKey.with(detail: "EC2 point is not on the curve")
        }
    }

    static func okp(algorithm: COSEAlgorithm, map: CBORMap) throws(WebAuthnError) -> (VerificationKey, Parameters) {
        guard let curve = map[int: -1]?.intValue, let x = map[int: -2]?.bytesValue else {
            throw WebAuthnError.malformedPublicKey.with(detail: "OKP key needs crv and x")
        }
        // crv 7 is Ed448, which nothing here can verify.
        if curve == 7 { throw WebAuthnError.unsupportedAlgorithm.with(detail: "Ed448 (OKP crv 7)") }
        guard curve == 6, algorithm == .edDSA || algorithm == .ed25519, x.count == 32,
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x)
        else { throw WebAuthnError.malformedPublicKey.with(detail: "OKP alg \(algorithm.rawValue) with crv \(curve)") }
        return (.ed25519(key), .okp(curve: curve, x: x))
    }

    static func rsa(algorithm: COSEAlgorithm, map: CBORMap) throws(WebAuthnError) -> (VerificationKey, Parameters) {
        let rsaAlgorithms: Set<COSEAlgorithm> = [.rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .rs1]
        guard rsaAlgorithms.contains(algorithm), let n = map[int: -1]?.bytesValue, let e = map[int: -2]?.bytesValue
        else { throw WebAuthnError.malformedPublicKey.with(detail: "RSA key needs an RSA alg, n and e") }
        // The (n:e:) initialiser refuses moduli under 2048 bits, which is the floor we want.
        guard let key = try? _RSA.Signing.PublicKey(n: n, e: e) else {
            throw WebAuthnError.malformedPublicKey.with(detail: "RSA modulus under 2048 bits or invalid")
        }
        return (.rsa(key), .rsa(n: n, e: e))
    }

    static func akp(algorithm: COSEAlgorithm, map: CBORMap) throws(WebAuthnError) -> (VerificationKey, Parameters) {
        guard let publicKey = map[int: -1]?.bytesValue else {
            throw WebAuthnError.malformedPublicKey.with(detail: "AKP key needs pub")
        }
        let parameters = Parameters.akp(publicKey: publicKey)
        switch algorithm {
        case .mlDSA65:
            guard let key = try? MLDSA65.PublicKey(rawRepresentation: publicKey) else { break }
            return (.mlDSA65(key), parameters)
        case .mlDSA87:
            guard let key = try? MLDSA87.PublicKey(rawRepresentation: publicKey) else { break }
            return (.mlDSA87(key), parameters)
        default:
            break
        }
        throw WebAuthnError.malformedPublicKey.with(detail: "AKP alg \(algorithm.rawValue) with a bad public key")
    }
}
