import Crypto
import Foundation

/// Checks a DPoP proof against the request it came with (RFC 9449 §4.3): method, URL,
/// freshness, access-token hash and nonce, then spends its `jti` so it works once.
struct DPoPVerifier: Sendable {
    let storage: any DPoPProofRepository
    let nonces: DPoPNonces
    /// The issuer, which every URL Sesame serves starts with (ends in `/`).
    let issuer: String
    let clock: any SesameClock

    /// How long a proof is accepted after its `iat`, and how far ahead of our clock its `iat`
    /// may be (a client's clock runs a little fast).
    static let maxAge: Int64 = 300
    static let maxSkew: Int64 = 60

    /// The verified proof of a request to `method` `path`.
    /// - Parameters:
    ///   - accessToken: the token the proof must be bound to (`ath`), at a protected resource.
    ///   - requireNonce: whether the proof must carry a current server nonce.
    /// - Throws: 400 `invalid_dpop_proof`, or `use_dpop_nonce` with a fresh nonce.
    func verify(_ compact: String, method: String, path: String, accessToken: String?, requireNonce: Bool)
        async throws -> DPoPProof
    {
        let proof = try DPoPProof(compact)
        let now = clock.now()
        guard proof.method == method else { throw SesameError.invalidDPoPProof("The DPoP proof is for another method.") }
        guard Self.withoutQuery(proof.url) == issuer + String(path.drop(while: { $0 == "/" })) else {
            throw SesameError.invalidDPoPProof("The DPoP proof is for another URL.")
        }
        let seconds = now.epochSeconds
        guard proof.issuedAt > seconds - Self.maxAge, proof.issuedAt <= seconds + Self.maxSkew else {
            throw SesameError.invalidDPoPProof("The DPoP proof's iat is outside the accepted window.")
        }
        if let accessToken, proof.accessTokenHash != DPoPProof.accessTokenHash(accessToken) {
            throw SesameError.invalidDPoPProof("The DPoP proof's ath does not match the access token.")
        }
        // Before the jti is spent: the client's retry with the nonce is a new proof anyway.
        if requireNonce, !(proof.nonce.map { nonces.isValid($0, at: now) } ?? false) {
            throw SesameError.useDPoPNonce(nonces.current(at: now))
        }
        // The id is the key's and the jti's together: two clients' random jtis never collide.
        let id = Array(SHA256.hash(data: Data("\(proof.thumbprint)\u{0}\(proof.jti)".utf8)))
        let until = Date(timeIntervalSince1970: Double(proof.issuedAt + Self.maxAge))
        guard try await storage.claimDPoPProof(id, expiresAt: until, at: now) else {
            throw SesameError.invalidDPoPProof("The DPoP proof was already used.")
        }
        return proof
    }

    /// RFC 9449 §4.3 step 9: `htu` is compared without its query and fragment.
    static func withoutQuery(_ url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }
}
