public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: DPoPProofRepository {
    public func claimDPoPProof(_ hash: [UInt8], expiresAt: Date, at now: Date) async throws -> Bool {
        try await claimOnce(in: "dpop_proofs", hash, expiresAt: expiresAt, at: now)
    }
}
