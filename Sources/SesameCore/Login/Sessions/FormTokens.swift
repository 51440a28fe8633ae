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

    /// `value` with its HMAC appended, for a cookie the hosted pages read back: the state of
    /// a login step, a declined passkey offer. The browser holds the value but cannot make
    /// or change one without the server's key.
    public func signed(_ value: String) -> String {
        Base64URL.encode(Array(value.utf8)) + "." + Base64URL.encode(hasher.hash(value, purpose: .pageCookie))
    }

    /// The value of a ``signed(_:)`` string whose HMAC holds (under the current or a previous
    /// key); nil for anything else.
    public func verified(_ signed: String?) -> String? {
        let parts = signed?.split(separator: ".", omittingEmptySubsequences: false) ?? []
        guard parts.count == 2, let bytes = Base64URL.decodeTolerant(String(parts[0])),
            let mac = Base64URL.decodeTolerant(String(parts[1]))
        else { return nil }
        // Bytes that are not UTF-8 are repaired here, and then no longer match their HMAC.
        let value = String(decoding: bytes, as: UTF8.self)
        let genuine = hasher.candidates(value, purpose: .pageCookie).contains {
            SecretHasher.constantTimeEquals($0, mac)
        }
        return genuine ? value : nil
    }
}
