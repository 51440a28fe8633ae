import Foundation

/// Validation and normalisation of the addresses people sign in with, so that one person
/// always maps to one record whatever case or spacing they type.
public enum Identifier {
    /// A lower-cased, trimmed email address, or nil when it is not a plausible address.
    public static func normalizedEmail(_ raw: String) -> String? {
        let email = raw.trimmingCharacters(in: .whitespaces).lowercased()
        guard email.utf8.count <= 254, !email.contains(where: { $0.isWhitespace || $0.isNewline }) else { return nil }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64 else { return nil }
        let domain = parts[1]
        guard domain.contains("."), !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains("..") else {
            return nil
        }
        let forbidden = CharacterSet(charactersIn: "<>()[]\\,;:\"").union(.controlCharacters)
        guard email.unicodeScalars.allSatisfy({ !forbidden.contains($0) }) else { return nil }
        return email
    }

    /// An E.164 number (`+` then 1–15 digits, Auth0's pattern `^\+[0-9]{1,15}$`), or nil.
    public static func normalizedPhone(_ raw: String) -> String? {
        let phone = raw.trimmingCharacters(in: .whitespaces)
        guard phone.first == "+" else { return nil }
        let digits = phone.dropFirst()
        guard (1...15).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return phone
    }
}
