import Crypto
import Foundation
import SesameCore

/// The HS256 JWT that authenticates Sesame to an SMS gateway, built directly on
/// swift-crypto's HMAC: it is three base64url segments, no library needed.
enum GatewayToken {
    /// Signs `{sub, aud, iat, exp}` with the configured secret.
    static func make(
        _ authentication: HTTPGatewayConfiguration.Authentication,
        issuedAt: Date,
        lifetime: Duration
    ) throws -> String {
        let iat = Int(issuedAt.timeIntervalSince1970)
        let claims = Claims(
            sub: authentication.subject, aud: authentication.audience, iat: iat, exp: iat + Int(lifetime.components.seconds))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = base64URL(try encoder.encode(claims))
        let signingInput = "\(header).\(payload)"
        let key = SymmetricKey(data: try secretBytes(authentication))
        let signature = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: key)
        return "\(signingInput).\(base64URL(Data(signature)))"
    }

    private struct Claims: Encodable {
        var sub: String
        var aud: String
        var iat: Int
        var exp: Int
    }

    /// The raw secret, or its base64url decoding (padding optional, standard alphabet tolerated).
    static func secretBytes(_ authentication: HTTPGatewayConfiguration.Authentication) throws -> Data {
        guard authentication.secretIsBase64URLEncoded else { return Data(authentication.secret.utf8) }
        var text = authentication.secret.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text = text.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let data = Data(base64Encoded: text) else {
            throw DeliveryError(message: "The gateway secret is not valid base64url")
        }
        return data
    }

    /// Base64url without padding (RFC 7515 §2).
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
