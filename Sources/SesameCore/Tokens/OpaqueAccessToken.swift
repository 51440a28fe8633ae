import Foundation
import SesameAPI

/// The default access token: opaque to clients, self-contained for the server. Its payload
/// is authenticated with the HMAC key instead of RSA, so a login costs one RSA signature
/// (the id_token) and `/userinfo` needs no token lookup.
struct OpaqueAccessToken: Codable, Equatable {
    var sub, cid, scp: String
    var iat, exp: Int64
    /// Random, so two tokens issued in the same second for the same grant still differ
    /// (a client that rotates tokens must be able to tell them apart).
    var jti: String?
    /// The login (refresh-token family) it belongs to: revoking the family ends the token.
    var fid: String?
    /// `auth_time` in seconds, for checks that need a recent login.
    var ath: Int64?
    /// Issue time in milliseconds, compared with the user's `tokensValidAfter`.
    var iam: Int64?
    /// The DPoP key's thumbprint when the token is bound to one (RFC 9449 §6's `cnf.jkt`).
    var jkt: String?

    /// `sat_` + base64url(JSON) + `.` + base64url(HMAC). The JSON holds the fields that are
    /// set, in this order; ``decode(_:with:)`` reads any JSON, so tokens made by
    /// `JSONEncoder` before keep working.
    func encode(with hasher: SecretHasher) throws -> String {
        var json = JSONObjectWriter()
        json.add("sub", sub)
        json.add("cid", cid)
        json.add("scp", scp)
        json.add("iat", iat)
        json.add("exp", exp)
        json.add("jti", jti)
        json.add("fid", fid)
        json.add("ath", ath)
        json.add("iam", iam)
        json.add("jkt", jkt)
        let payload = Base64URL.encode(json.finish())
        return "sat_\(payload).\(Base64URL.encode(hasher.hash(payload, purpose: .accessToken)))"
    }

    /// Decodes a token whose MAC verifies under any current key; nil otherwise.
    static func decode(_ token: String, with hasher: SecretHasher) -> OpaqueAccessToken? {
        guard token.hasPrefix("sat_"), token.utf8.count < 4096 else { return nil }
        let parts = token.dropFirst(4).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let mac = Base64URL.decode(parts[1]),
            hasher.matches(parts[0], stored: mac, purpose: .accessToken),
            let json = Base64URL.decode(parts[0])
        else { return nil }
        return try? JSONDecoder().decode(OpaqueAccessToken.self, from: Data(json))
    }
}
