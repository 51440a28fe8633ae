import Crypto
import Foundation

/// The hash functions WebAuthn signature and TPM structures refer to.
enum HashAlgorithm: Sendable {
    case sha1, sha256, sha384, sha512

    /// Hashes `data` with this function.
    func hash(_ data: some DataProtocol) -> [UInt8] {
        switch self {
        case .sha1: Array(Insecure.SHA1.hash(data: data))
        case .sha256: Array(SHA256.hash(data: data))
        case .sha384: Array(SHA384.hash(data: data))
        case .sha512: Array(SHA512.hash(data: data))
        }
    }

    /// TPM_ALG_ID values (TPM 2.0 Part 2, §6.3).
    init?(tpmAlgorithmID: UInt16) {
        switch tpmAlgorithmID {
        case 0x0004: self = .sha1
        case 0x000B: self = .sha256
        case 0x000C: self = .sha384
        case 0x000D: self = .sha512
        default: return nil
        }
    }
}
