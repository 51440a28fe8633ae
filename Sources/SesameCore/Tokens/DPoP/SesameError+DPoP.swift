/// What a DPoP refusal tells the client beyond the body (RFC 9449 §7.1 and §8).
public struct DPoPChallenge: Sendable, Equatable {
    /// Whether `WWW-Authenticate` says `DPoP` (a protected resource) rather than nothing
    /// (the token endpoint, which answers in the body).
    public var resource: Bool
    /// The nonce the next proof must carry, sent as `DPoP-Nonce`.
    public var nonce: String?
}

extension SesameError.Code {
    /// RFC 9449 §5: the DPoP proof is malformed or does not match the request.
    public static let invalidDPoPProof: Self = "invalid_dpop_proof"
    /// RFC 9449 §8: the proof must carry the nonce sent in `DPoP-Nonce`.
    public static let useDPoPNonce: Self = "use_dpop_nonce"
}

extension SesameError {
    /// 400 `invalid_dpop_proof`.
    public static func invalidDPoPProof(_ message: String) -> SesameError {
        SesameError(.badRequest, .invalidDPoPProof, message)
    }

    /// 400 `use_dpop_nonce` with the nonce to use.
    static func useDPoPNonce(_ nonce: String) -> SesameError {
        var error = SesameError(.badRequest, .useDPoPNonce, "Authorization server requires nonce in DPoP proof.")
        error.dpop = DPoPChallenge(resource: false, nonce: nonce)
        return error
    }

    /// The same refusal as a protected resource answers it: 401 with `WWW-Authenticate: DPoP`.
    func atResource() -> SesameError {
        var error =
            kind == .badRequest ? SesameError(.unauthorized, code, message, logDetail: logDetail) : self
        error.dpop = DPoPChallenge(resource: true, nonce: dpop?.nonce)
        return error
    }
}
