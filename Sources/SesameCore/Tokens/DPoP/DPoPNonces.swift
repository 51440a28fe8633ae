import Foundation
import SesameAPI

/// Server-provided DPoP nonces (RFC 9449 §8) that need no storage and that every instance
/// shares: the nonce of a time window is its number's HMAC under the shared key ring. A nonce
/// is accepted in its own window and the next, so one handed out just before a window ends
/// still works.
struct DPoPNonces: Sendable {
    let hasher: SecretHasher
    /// The window's length in seconds.
    static let window: Int64 = 300

    /// The nonce to hand out at `now`.
    func current(at now: Date) -> String {
        Base64URL.encode(hasher.hash(String(Self.windowNumber(now)), purpose: .dpopNonce))
    }

    /// Whether `nonce` is this window's or the previous one's, under any key of the ring.
    func isValid(_ nonce: String, at now: Date) -> Bool {
        guard nonce.utf8.count < 100, let mac = Base64URL.decode(nonce) else { return false }
        let window = Self.windowNumber(now)
        return [window, window - 1].contains { hasher.matches(String($0), stored: mac, purpose: .dpopNonce) }
    }

    private static func windowNumber(_ now: Date) -> Int64 { Int64(now.timeIntervalSince1970) / window }
}
