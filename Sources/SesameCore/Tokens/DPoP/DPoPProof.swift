import Crypto
import Foundation
import SesameAPI

/// A DPoP proof (RFC 9449 §4.2) whose form and signature checked out: a JWT of type
/// `dpop+jwt`, signed with ES256 by the EC P-256 key its `jwk` header carries. What it claims
/// (method, URL, time, nonce, token hash) is checked by ``DPoPVerifier``.
public struct DPoPProof: Sendable, Equatable {
    /// The key's JWK SHA-256 thumbprint (RFC 7638), base64url: what tokens are bound to.
    public let thumbprint: String
    public let method: String
    public let url: String
    public let issuedAt: Int64
    public let jti: String
    public let nonce: String?
    /// base64url(SHA-256(access token)), on proofs sent with an access token.
    public let accessTokenHash: String?

    /// The signing algorithms proofs may use.
    public static let algorithms = ["ES256"]

    /// Parses and verifies `compact`.
    /// - Throws: 400 `invalid_dpop_proof` for anything malformed, another type or algorithm,
    ///   a private key in the header, or a bad signature.
    public init(_ compact: String) throws {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard compact.utf8.count < 8192, parts.count == 3,
            let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)),
            let claims = try? JSONDecoder().decode(Claims.self, from: Data(payloadBytes))
        else { throw SesameError.invalidDPoPProof("The DPoP proof is not a well-formed JWT.") }
        guard header.typ == "dpop+jwt" else { throw SesameError.invalidDPoPProof("The DPoP proof's typ must be dpop+jwt.") }
        guard header.alg == "ES256", let jwk = header.jwk, jwk.kty == "EC", jwk.crv == "P-256", jwk.d == nil,
            let x = Base64URL.decode(jwk.x ?? ""), let y = Base64URL.decode(jwk.y ?? ""), x.count == 32, y.count == 32,
            let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
        else {
            throw SesameError.invalidDPoPProof("The DPoP proof must be signed with ES256 by the public P-256 key in its jwk.")
        }
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { throw SesameError.invalidDPoPProof("The DPoP proof's signature does not verify.") }
        thumbprint = Self.thumbprint(x: Base64URL.encode(x), y: Base64URL.encode(y))
        (method, url, issuedAt, jti) = (claims.htm, claims.htu, claims.iat, claims.jti)
        (nonce, accessTokenHash) = (claims.nonce, claims.ath)
    }

    /// RFC 7638: SHA-256 over the required members in lexicographic order, no whitespace.
    static func thumbprint(x: String, y: String) -> String {
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return Base64URL.encode(Array(SHA256.hash(data: Data(canonical.utf8))))
    }

    /// The `ath` a proof sent with `accessToken` carries (RFC 9449 §4.2).
    public static func accessTokenHash(_ accessToken: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Data(accessToken.utf8))))
    }

    private struct Header: Decodable {
        let typ: String?
        let alg: String?
        let jwk: JWK?
    }

    private struct JWK: Decodable {
        let kty: String?
        let crv: String?
        let x: String?
        let y: String?
        /// A private key's scalar, which a proof must never carry.
        let d: String?
    }

    private struct Claims: Decodable {
        let htm, htu, jti: String
        let iat: Int64
        let nonce, ath: String?
    }
}
