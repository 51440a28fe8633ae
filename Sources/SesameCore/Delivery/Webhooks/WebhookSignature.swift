import Crypto
public import Foundation

/// Standard Webhooks signing (standardwebhooks.com): HMAC-SHA256 over
/// `"{webhook-id}.{webhook-timestamp}.{body}"` with the secret's bytes (the base64 after
/// `whsec_`), sent as `v1,` and the base64 MAC.
public enum WebhookSignature {
    /// The prefix of every signing secret.
    public static let secretPrefix = "whsec_"

    /// A new secret: `whsec_` and 32 random bytes in base64.
    public static func newSecret(random: any RandomSource) -> String {
        secretPrefix + Data(random.bytes(32)).base64EncodedString()
    }

    /// The `webhook-signature` header value for one message.
    public static func sign(id: String, timestamp: Int64, body: Data, secret: String) throws -> String {
        guard secret.hasPrefix(secretPrefix), let key = Data(base64Encoded: String(secret.dropFirst(secretPrefix.count)))
        else { throw DeliveryError(message: "the webhook's signing secret is not a whsec_ secret", permanent: true) }
        var signed = Data("\(id).\(timestamp).".utf8)
        signed.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))
        return "v1," + Data(mac).base64EncodedString()
    }
}
