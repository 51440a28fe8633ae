public import Foundation

/// The single-use gate of DPoP proofs (RFC 9449 §11.1).
public protocol DPoPProofRepository: Sendable {
    /// Records a proof id (a hash of its key and `jti`) until `expiresAt`. True for exactly one
    /// of any number of concurrent callers while the id is unexpired, on one instance or many.
    func claimDPoPProof(_ hash: [UInt8], expiresAt: Date, at now: Date) async throws -> Bool
}
