import SesameAPI

/// Cross-site request forgery tokens for the hosted pages' forms (OWASP's signed
/// double-submit cookie): the browser holds a random binding in a cookie, and every form
/// carries the HMAC of that binding. Another site can make a browser post a form, but can
/// neither read the cookie nor compute the HMAC without the server's key, so a forged post
/// (for example one that signs the victim in to the attacker's account) is refused. Unlike a
/// plain double-submit, a cookie planted by a sibling subdomain is useless without the key.
public struct FormTokens: Sendable {
    let hasher: SecretHasher
    let random: any RandomSource

    /// A new binding for a browser that has none.
    public func newBinding() -> String {
        random.token(24)
    }

    /// The token forms carry for `binding`.
    public func token(for binding: String) -> String {
        Base64URL.encode(hasher.hash(binding, purpose: .formToken))
    }

    /// Whether `token` belongs to `binding` (under the current or a previous HMAC key).
    public func verify(_ token: String?, binding: String?) -> Bool {
        guard let token, let binding, !binding.isEmpty, let presented = Base64URL.decodeTolerant(token) else {
            return false
        }
        return hasher.candidates(binding, purpose: .formToken).contains {
            SecretHasher.constantTimeEquals($0, presented)
        }
    }
}
