public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: DPoPProofRepository {
    public func claimDPoPProof(_ hash: [UInt8], expiresAt: Date, at now: Date) async throws -> Bool {
        try await claimOnce(in: "dpop_proofs", hash, expiresAt: expiresAt, at: now)
    }

    public func refreshTokenBinding(hashes: [[UInt8]], clientID: String) async throws -> String?? {
        try await executor.read { db in
            for hash in hashes {
                if let row = try await db.raw(
                    """
                    SELECT dpop_jkt FROM refresh_tokens WHERE token_hash = \(bind: Data(hash))
                    AND client_id = \(bind: clientID)
                    """
                ).first() {
                    return .some(try row.optionalString("dpop_jkt"))
                }
            }
            return nil
        }
    }
}
