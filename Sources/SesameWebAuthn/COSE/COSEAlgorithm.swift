/// COSE algorithm identifiers that appear in WebAuthn (IANA "COSE Algorithms" registry).
///
/// Some identifiers are recognised only so that they can be refused precisely with
/// ``WebAuthnError/unsupportedAlgorithm`` (see ``isVerifiable``).
public enum COSEAlgorithm: Int, Sendable, CaseIterable, Hashable {
    /// ECDSA with SHA-256 on P-256.
    case es256 = -7
    /// ECDSA with SHA-384 on P-384.
    case es384 = -35
    /// ECDSA with SHA-512 on P-521.
    case es512 = -36
    /// EdDSA; WebAuthn uses it with Ed25519 keys (crv 6).
    case edDSA = -8
    /// Fully specified Ed25519 (RFC 9864).
    case ed25519 = -19
    /// Ed448; no library available here implements it, so it is always refused.
    case ed448 = -53
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = -257
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    case rs384 = -258
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    case rs512 = -259
    /// RSASSA-PSS with SHA-256, MGF1 SHA-256, 32-byte salt.
    case ps256 = -37
    /// RSASSA-PSS with SHA-384, MGF1 SHA-384, 48-byte salt.
    case ps384 = -38
    /// RSASSA-PSS with SHA-512, MGF1 SHA-512, 64-byte salt.
    case ps512 = -39
    /// RSASSA-PKCS1-v1_5 with SHA-1. Accepted only inside TPM attestation (see Documentation.md).
    case rs1 = -65535
    /// ML-DSA-44 (FIPS 204); swift-crypto 4.5.2 lacks it, so it is always refused.
    case mlDSA44 = -48
    /// ML-DSA-65 (FIPS 204).
    case mlDSA65 = -49
    /// ML-DSA-87 (FIPS 204).
    case mlDSA87 = -50

    /// Whether this library can verify signatures made with the algorithm.
    public var isVerifiable: Bool {
        switch self {
        case .ed448, .mlDSA44: false
        default: true
        }
    }

    /// The algorithms a relying party accepts by default: everything verifiable except RS1.
    public static let defaultSupported: [COSEAlgorithm] = [
        .es256, .edDSA, .ed25519, .es384, .es512, .rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .mlDSA65, .mlDSA87,
    ]

    /// The hash that ECDSA, RSA and TPM `extraData` use with this algorithm, if it has one.
    var hashAlgorithm: HashAlgorithm? {
        switch self {
        case .es256, .rs256, .ps256: .sha256
        case .es384, .rs384, .ps384: .sha384
        case .es512, .rs512, .ps512: .sha512
        case .rs1: .sha1
        case .edDSA, .ed25519, .ed448, .mlDSA44, .mlDSA65, .mlDSA87: nil
        }
    }
}
