public import Crypto
public import Foundation
import SesameAPI

/// Proof of possession for the app's tokens (RFC 9449, DPoP): a P-256 key that signs a proof
/// for each request, so a stolen access or refresh token is useless without it. Sesame then
/// answers `token_type: DPoP` and refuses the tokens without a proof by this key.
///
/// ```swift
/// let dpop = try DPoP(deviceKey: key, store: store)   // or DPoP() for a fresh software key
/// let sesame = SesameClient(domain: domain, clientID: clientID).usingDPoP(dpop)
/// ```
public struct DPoP: Sendable {
    /// The key's public half, sent in every proof's `jwk` header.
    public let publicKey: P256.Signing.PublicKey
    private let sign: @Sendable ([UInt8]) throws -> Data
    /// The last `DPoP-Nonce` the server sent, for the next proof (RFC 9449 §8).
    let nonces = DPoPNonceStore()

    /// A DPoP key held in memory (a new one by default).
    public init(privateKey: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) {
        publicKey = privateKey.publicKey
        sign = { try privateKey.signature(for: $0).rawRepresentation }
    }

    /// The app's device key as its DPoP key, signing where the key lives (a file, the
    /// Keychain, the Secure Enclave). Only an ES256 key can be.
    /// - Throws: ``SesameClientError`` for an RS256 key.
    public init(deviceKey: DeviceKey, store: any DeviceKeyStore) throws {
        guard deviceKey.algorithm == .es256 else {
            throw SesameClientError.invalidResponse("DPoP needs an ES256 device key")
        }
        publicKey = try P256.Signing.PublicKey(pemRepresentation: try store.publicKeyPEM(of: deviceKey))
        sign = { try store.signature(of: deviceKey, over: $0) }
    }

    /// The key's JWK SHA-256 thumbprint (RFC 7638): the `cnf.jkt` of tokens bound to it.
    public var thumbprint: String {
        let (x, y) = coordinates
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return Base64URL.encode(Array(SHA256.hash(data: Data(canonical.utf8))))
    }

    /// A proof for one request: `htu` is `url` without query and fragment, `ath` the hash of
    /// the access token sent with it.
    public func proof(method: String, url: URL, nonce: String? = nil, accessToken: String? = nil, at now: Date = Date())
        throws -> String
    {
        let (x, y) = coordinates
        let header: [String: Any] = [
            "typ": "dpop+jwt", "alg": "ES256", "jwk": ["kty": "EC", "crv": "P-256", "x": x, "y": y],
        ]
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        components?.query = nil
        components?.fragment = nil
        var claims: [String: Any] = [
            "htm": method.uppercased(), "htu": components?.url?.absoluteString ?? url.absoluteString,
            "iat": Int(now.timeIntervalSince1970), "jti": UUID().uuidString,
        ]
        claims["nonce"] = nonce
        claims["ath"] = accessToken.map { Base64URL.encode(Array(SHA256.hash(data: Data($0.utf8)))) }
        func part(_ object: [String: Any]) throws -> String {
            Base64URL.encode(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let input = try part(header) + "." + (try part(claims))
        return input + "." + Base64URL.encode(try sign(Array(input.utf8)))
    }

    private var coordinates: (x: String, y: String) {
        let raw = publicKey.rawRepresentation
        return (Base64URL.encode(raw.prefix(32)), Base64URL.encode(raw.suffix(32)))
    }
}

/// The server's latest DPoP nonce, shared by the copies of a client.
final class DPoPNonceStore: @unchecked Sendable {
    private let lock = NSLock()
    private var nonce: String?

    var current: String? { lock.withLock { nonce } }

    func keep(_ value: String?) {
        guard let value else { return }
        lock.withLock { nonce = value }
    }
}
