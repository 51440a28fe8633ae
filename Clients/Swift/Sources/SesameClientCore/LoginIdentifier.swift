import Foundation

/// What a person typed to sign in: an email address, a phone number in E.164, or neither.
/// The checks catch typing mistakes before a request; the server decides the rest.
public enum LoginIdentifier {
    /// What kind of identifier a text is.
    public enum Kind: Sendable, Equatable {
        case email
        case phoneNumber
        case invalid
    }

    /// The text without surrounding spaces; a phone number (it starts with `+`) also without
    /// the spaces, dashes, dots and brackets people type inside it.
    public static func normalized(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("+") else { return trimmed }
        return String(trimmed.filter { !" -.()\u{00A0}".contains($0) })
    }

    /// The kind of an already ``normalized(_:)`` text.
    public static func kind(of text: String) -> Kind {
        if isEmail(text) { return .email }
        if isPhoneNumber(text) { return .phoneNumber }
        return .invalid
    }

    /// One `@` between a local part and a domain with a dot inside it, no spaces.
    public static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, text.count <= 254,
            !text.contains(where: { $0.isWhitespace || $0.isNewline })
        else { return false }
        let domain = parts[1]
        return domain.contains(".") && !domain.hasPrefix(".") && !domain.hasSuffix(".") && !domain.contains("..")
    }

    /// `+` and 7 to 15 digits, the first not 0 (E.164).
    public static func isPhoneNumber(_ text: String) -> Bool {
        guard text.hasPrefix("+") else { return false }
        let digits = text.dropFirst()
        return (7...15).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber } && digits.first != "0"
    }
}
