import Crypto
import Foundation
import SesameAPI
import _CryptoExtras

/// Verifies id_tokens the way an app must before trusting them (OIDC Core §3.1.3.7): an
/// RS256 signature by a key of the issuer's JWKS, the issuer, the audience (this client),
/// the expiry, and the nonce when one was sent. Discovery and the JWKS are fetched once and
/// the JWKS again when a token names a key it does not hold (a rotation).
actor IDTokenVerifier {
    private let transport: HTTPTransport
    private let clientID: String
    private var issuer: String?
    private var keys: [String: _RSA.Signing.PublicKey] = [:]
    /// Clock skew tolerated on `exp`, in seconds.
    static let leeway: TimeInterval = 60

    init(transport: HTTPTransport, clientID: String) {
        self.transport = transport
        self.clientID = clientID
    }

    /// Throws unless `token` is a valid id_token for this client.
    func verify(_ token: String, nonce: String?, now: Date) async throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let header = Self.json(parts[0]), let claims = Self.json(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw SesameClientError.invalidIDToken("not a compact JWS") }
        guard header["alg"] as? String == "RS256", let kid = header["kid"] as? String else {
            throw SesameClientError.invalidIDToken("not RS256 with a kid")
        }
        let key = try await key(kid)
        let digest = SHA256.hash(data: Array((parts[0] + "." + parts[1]).utf8))
        guard
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: digest, padding: .insecurePKCS1v1_5)
        else { throw SesameClientError.invalidIDToken("bad signature") }
        try await check(claims, nonce: nonce, now: now)
    }

    private func check(_ claims: [String: Any], nonce: String?, now: Date) async throws {
        guard claims["iss"] as? String == (try await issuerName()) else { throw SesameClientError.invalidIDToken("wrong issuer") }
        let audience = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String] ?? [])
        guard audience.contains(clientID) else { throw SesameClientError.invalidIDToken("not for this client") }
        guard let exp = (claims["exp"] as? NSNumber)?.doubleValue, exp + Self.leeway > now.timeIntervalSince1970 else {
            throw SesameClientError.invalidIDToken("expired")
        }
        if let nonce, claims["nonce"] as? String != nonce { throw SesameClientError.invalidIDToken("nonce mismatch") }
    }

    func issuerName() async throws -> String {
        if let issuer { return issuer }
        let discovery = try JSONSerialization.jsonObject(with: try await transport.get("/.well-known/openid-configuration").body)
        guard let name = (discovery as? [String: Any])?["issuer"] as? String else {
            throw SesameClientError.invalidResponse("discovery without an issuer")
        }
        issuer = name
        return name
    }

    private func key(_ kid: String) async throws -> _RSA.Signing.PublicKey {
        if let key = keys[kid] { return key }
        let document = try JSONSerialization.jsonObject(with: try await transport.get("/.well-known/jwks.json").body)
        for entry in (document as? [String: Any])?["keys"] as? [[String: Any]] ?? [] {
            guard entry["kty"] as? String == "RSA", let id = entry["kid"] as? String,
                let modulus = (entry["n"] as? String).flatMap(Base64URL.decode),
                let exponent = (entry["e"] as? String).flatMap(Base64URL.decode),
                let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent)
            else { continue }
            keys[id] = key
        }
        guard let key = keys[kid] else { throw SesameClientError.invalidIDToken("signed by an unknown key \(kid)") }
        return key
    }

    private static func json(_ part: String) -> [String: Any]? {
        Base64URL.decode(part).flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }
}
