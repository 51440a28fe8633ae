public import SesameAPI

/// An access token as a request presents it: the `Authorization` scheme, and for `DPoP` the
/// proofs and what they must be for.
public struct PresentedAccessToken: Sendable {
    /// `Authorization: Bearer` or `Authorization: DPoP`.
    public enum Scheme: Sendable { case bearer, dpop }

    public var scheme: Scheme
    public var token: String?
    /// Every `DPoP` header of the request (RFC 9449 §4.3 allows exactly one).
    public var proofs: [String]
    public var method: String
    /// The request's path, which the proof's `htu` must name under the issuer.
    public var path: String

    /// Creates a presentation.
    public init(scheme: Scheme, token: String?, proofs: [String], method: String, path: String) {
        self.scheme = scheme
        self.token = token
        self.proofs = proofs
        self.method = method
        self.path = path
    }
}

extension TokenService {
    var dpop: DPoPVerifier {
        DPoPVerifier(storage: storage, nonces: DPoPNonces(hasher: hasher), issuer: issuer.settings.issuer, clock: clock)
    }

    /// The nonce the next DPoP proof should carry, for the `DPoP-Nonce` header.
    public func dpopNonce() -> String { DPoPNonces(hasher: hasher).current(at: clock.now()) }

    /// The key a token request proves possession of (its JWK thumbprint), or nil without a
    /// `DPoP` header. The token endpoint requires a server nonce (RFC 9449 §8).
    /// - Throws: 400 `invalid_dpop_proof`, or `use_dpop_nonce` with the nonce to use.
    public func tokenRequestKey(proofs: [String], path: String) async throws -> String? {
        guard let proof = try Self.single(proofs) else { return nil }
        return try await dpop.verify(proof, method: "POST", path: path, accessToken: nil, requireNonce: true).thumbprint
    }

    /// `GET /userinfo` for a token presented either way.
    public func userInfo(_ presented: PresentedAccessToken) async throws -> UserInfo {
        let grant = try await authenticate(presented)
        guard grant.scope.contains("openid") else { throw SesameError.invalidToken }
        return UserInfo(user: grant.user, scope: grant.scope)
    }

    /// The live user an access token speaks for. A DPoP-bound token works only as
    /// `Authorization: DPoP` with a proof by its key for this request and token.
    /// - Throws: 401 `invalid_token` (with a DPoP challenge for DPoP failures), as
    ///   ``authenticate(accessToken:)``.
    public func authenticate(_ presented: PresentedAccessToken) async throws -> AccessGrant {
        guard presented.scheme == .dpop else { return try await authenticate(accessToken: presented.token) }
        guard let accessToken = presented.token else { throw SesameError.invalidToken.atResource() }
        let token = try await validate(accessToken)
        guard let key = token.dpopThumbprint else {
            throw SesameError(.unauthorized, .invalidToken, "The access token is not DPoP-bound: send it as Bearer.")
                .atResource()
        }
        do {
            guard let compact = try Self.single(presented.proofs) else {
                throw SesameError.invalidDPoPProof("A DPoP-bound access token needs a DPoP proof.")
            }
            let proof = try await dpop.verify(
                compact, method: presented.method, path: presented.path, accessToken: accessToken, requireNonce: false)
            guard proof.thumbprint == key else {
                throw SesameError.invalidDPoPProof("The DPoP proof is not made with the access token's key.")
            }
        } catch let error as SesameError {
            throw error.atResource()
        }
        return try await grant(for: token)
    }

    /// The one proof of a request; more than one is refused (RFC 9449 §4.3 step 1).
    static func single(_ proofs: [String]) throws -> String? {
        guard proofs.count <= 1 else { throw SesameError.invalidDPoPProof("Send at most one DPoP header.") }
        return proofs.first
    }
}
