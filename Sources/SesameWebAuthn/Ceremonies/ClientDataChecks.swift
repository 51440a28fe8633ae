import Crypto
import Foundation
import SesameAPI

/// The clientDataJSON checks shared by both ceremonies (§7.1 steps 5-10, §7.2 steps 10-15).
struct ClientDataChecks {
    let relyingParty: WebAuthnRelyingParty

    /// Parses and checks clientDataJSON; returns SHA-256 of the raw bytes (the client data hash).
    func verify(
        clientDataJSON: [UInt8],
        expectedType: String,
        expectedChallenge: [UInt8]
    ) throws(WebAuthnError) -> [UInt8] {
        let clientData = try CollectedClientData(bytes: clientDataJSON)
        // §7.1 step 7 / §7.2 step 11: exact type string.
        guard clientData.type == expectedType else {
            throw WebAuthnError.clientDataTypeMismatch.with(detail: "got \(clientData.type)")
        }
        try verifyChallenge(clientData.challenge, expected: expectedChallenge)
        // §7.1 step 9 / §7.2 step 13: exact match against the allowed list.
        guard relyingParty.allowedOrigins.contains(clientData.origin) else {
            throw WebAuthnError.originMismatch.with(detail: clientData.origin)
        }
        try verifyEmbedding(clientData)
        try verifyTokenBinding(clientData.tokenBindingStatus)
        // §7.1 step 11: hash the bytes as received, never a re-serialisation.
        return Array(SHA256.hash(data: clientDataJSON))
    }

    /// §7.1 step 8: compare decoded bytes, in constant time, so odd encodings of the same bytes match.
    private func verifyChallenge(_ encoded: String, expected: [UInt8]) throws(WebAuthnError) {
        guard let received = Base64URL.decodeTolerant(encoded), ConstantTime.equal(received, expected) else {
            throw WebAuthnError.challengeMismatch
        }
    }

    /// L3 §7.1 step 10 (crossOrigin, topOrigin): an iframe embedding must be expected by the RP,
    /// and the top-level origin must be one it allows.
    private func verifyEmbedding(_ clientData: CollectedClientData) throws(WebAuthnError) {
        if clientData.crossOrigin == true, !relyingParty.allowCrossOrigin {
            throw WebAuthnError.crossOriginNotAllowed
        }
        guard let topOrigin = clientData.topOrigin else { return }
        guard relyingParty.allowCrossOrigin else { throw WebAuthnError.crossOriginNotAllowed }
        guard relyingParty.allowedTopOrigins.contains(topOrigin) else {
            throw WebAuthnError.topOriginNotAllowed.with(detail: topOrigin)
        }
    }

    /// Level 2 tokenBinding: `present` and `supported` are the only valid statuses; unknown
    /// statuses are ignored for forward compatibility, but `not-supported` was never valid.
    private func verifyTokenBinding(_ status: String?) throws(WebAuthnError) {
        if status == "not-supported" {
            throw WebAuthnError.tokenBindingInvalid.with(detail: "status not-supported")
        }
    }
}

/// Comparison whose duration does not depend on where the inputs differ.
enum ConstantTime {
    static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
