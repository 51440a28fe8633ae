import Foundation

/// Validation and normalisation of the addresses people sign in with, so that one person
/// always maps to one record whatever case or spacing they type.
public enum Identifier {
    /// A lower-cased, trimmed email address, or nil when it is not a plausible address.
    public static func normalizedEmail(_ raw: String) -> String? {
        let email = raw.trimmingWhitespace().lowercased()
        let valid = email.utf8.allSatisfy { $0 < 0x80 } ? isValidASCIIEmail(email.utf8) : isValidEmail(email)
        return valid ? email : nil
    }

    /// Whether a trimmed, lower-cased address has the shape Sesame accepts: at most 254 bytes,
    /// no white space, one `@` after a local part of 1 to 64 bytes, a domain with a dot but
    /// none first, last or doubled, and nothing from ``forbidden``.
    static func isValidEmail(_ email: String) -> Bool {
        guard email.utf8.count <= 254, !email.contains(where: { $0.isWhitespace || $0.isNewline }) else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64 else { return false }
        let domain = parts[1]
        guard domain.contains("."), !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains("..") else {
            return false
        }
        return !email.unicodeScalars.contains(where: isForbiddenInEmail)
    }

    /// ``isValidEmail(_:)`` for an address of ASCII only, in one pass over its bytes: the
    /// general check splits by grapheme and searches through `NSString`, which was about 1 %
    /// of an email-code login's instructions. A test holds the two to the same answers.
    static func isValidASCIIEmail(_ bytes: String.UTF8View) -> Bool {
        guard bytes.count <= 254 else { return false }
        var (at, count, previous, domainHasDot) = (nil as Int?, 0, UInt8(0), false)
        for byte in bytes {
            // White space (tab to carriage return, space) is forbidden with the rest.
            if byte == 0x20 || isForbiddenInEmail(Unicode.Scalar(byte)) { return false }
            if byte == UInt8(ascii: "@") {
                guard at == nil else { return false }
                at = count
            } else if at != nil && byte == UInt8(ascii: ".") {
                // A dot first in the domain, or after another.
                guard previous != UInt8(ascii: "."), previous != UInt8(ascii: "@") else { return false }
                domainHasDot = true
            }
            (previous, count) = (byte, count + 1)
        }
        guard let at, (1...64).contains(at) else { return false }
        return domainHasDot && previous != UInt8(ascii: ".")
    }

    /// Punctuation an address may carry only quoted (which Sesame does not accept), and control
    /// and format characters. Built once: building it per address was about 1 % of an
    /// email-code login.
    private static let forbidden = CharacterSet(charactersIn: "<>()[]\\,;:\"").union(.controlCharacters)

    /// Whether `scalar` is in ``forbidden``, with ASCII answered without Foundation's set.
    static func isForbiddenInEmail(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return forbidden.contains(scalar) }
        switch scalar {
        case "\0"..<" ", "\u{7F}", "<", ">", "(", ")", "[", "]", "\\", ",", ";", ":", "\"": return true
        default: return false
        }
    }

    /// An E.164 number (`+` then 1–15 digits, Auth0's pattern `^\+[0-9]{1,15}$`), or nil.
    public static func normalizedPhone(_ raw: String) -> String? {
        let phone = raw.trimmingWhitespace()
        guard phone.first == "+" else { return nil }
        let digits = phone.dropFirst()
        guard (1...15).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return phone
    }
}
