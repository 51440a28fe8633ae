import Foundation

/// Masks the personal data a log line may quote (email addresses, phone numbers), so logs
/// shipped to a log service do not become a list of who signs in. The first character of an
/// address's local part, its domain, and the first and last two digits of a number stay,
/// which is enough to follow one person's attempts through a log.
public enum LogRedaction {
    // Both patterns are fixed literals, so building them cannot fail.
    private static let email = try! NSRegularExpression(pattern: "([A-Za-z0-9._%+\\-])[A-Za-z0-9._%+\\-]*@")
    private static let phone = try! NSRegularExpression(pattern: "\\+([0-9]{2})[0-9]{3,}([0-9]{2})")

    /// `text` with every email address and E.164 phone number in it masked:
    /// `ana@example.com` → `a***@example.com`, `+14155550123` → `+14*******23`.
    public static func mask(_ text: String) -> String {
        let emailMasked = replace(email, in: text) { captures, _ in "\(captures[0])***@" }
        return replace(phone, in: emailMasked) { captures, length in
            // "+" and four kept digits: the rest become stars, so the length still shows.
            "+\(captures[0])" + String(repeating: "*", count: length - 5) + captures[1]
        }
    }

    /// Replaces each match with `template(captures, matchLength)`.
    private static func replace(
        _ pattern: NSRegularExpression, in text: String, _ template: (_ captures: [String], _ length: Int) -> String
    ) -> String {
        let source = text as NSString
        var result = ""
        var cursor = 0
        for match in pattern.matches(in: text, range: NSRange(location: 0, length: source.length)) {
            result += source.substring(with: NSRange(location: cursor, length: match.range.location - cursor))
            let captures = (1..<match.numberOfRanges).map { source.substring(with: match.range(at: $0)) }
            result += template(captures, match.range.length)
            cursor = match.range.location + match.range.length
        }
        return result + source.substring(from: cursor)
    }
}
