import Foundation

/// Validation and normalisation of the addresses people sign in with, so that one person
/// always maps to one record whatever case or spacing they type.
public enum Identifier {
    /// A lower-cased, trimmed email address, or nil when it is not a plausible address.
    public static func normalizedEmail(_ raw: String) -> String? {
        let email = raw.trimmingWhitespace().lowercased()
        guard email.utf8.count <= 254, !email.contains(where: { $0.isWhitespace || $0.isNewline }) else { return nil }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64 else { return nil }
        let domain = parts[1]
        guard domain.contains("."), !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains("..") else {
            return nil
        }
        guard !email.unicodeScalars.contains(where: isForbiddenInEmail) else { return nil }
        return email
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
