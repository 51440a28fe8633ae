import Crypto
import Foundation
import SesameAPI

/// A client's DPoP key in tests: makes proofs (RFC 9449 §4.2) as Auth0.swift's
/// `DPoPProofGenerator` does, with every claim open to change so tests can forge bad ones.
struct DPoPKey {
    let key = P256.Signing.PrivateKey()

    /// A proof for `method` `url`.
    func proof(
        _ method: String = "POST", _ url: String = CoreWorld.issuer + "oauth/token", at iat: Date, jti: String? = nil,
        nonce: String? = nil, accessToken: String? = nil, typ: String = "dpop+jwt"
    ) -> String {
        let raw = key.publicKey.rawRepresentation
        let jwk = ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(raw.prefix(32)), "y": Base64URL.encode(raw.suffix(32))]
        let header: [String: Any] = ["typ": typ, "alg": "ES256", "jwk": jwk]
        var claims: [String: Any] = [
            "htm": method, "htu": url, "iat": Int(iat.timeIntervalSince1970), "jti": jti ?? UUID().uuidString,
        ]
        claims["nonce"] = nonce
        claims["ath"] = accessToken.map { Base64URL.encode(Array(SHA256.hash(data: Data($0.utf8)))) }
        let input = [header, claims].map { Base64URL.encode(try! JSONSerialization.data(withJSONObject: $0)) }
            .joined(separator: ".")
        let signature = try! key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
