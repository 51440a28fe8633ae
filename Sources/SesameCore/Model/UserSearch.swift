import Foundation

/// Which users to list: all, or those whose email or phone number matches, a page at a time.
public struct UserSearch: Sendable, Equatable {
    /// What a search compares.
    public enum Match: Sendable, Equatable {
        /// Every user.
        case all
        /// Email or phone number containing the text (case-insensitive for email).
        case containing(String)
        /// This exact email address (compared case-insensitively).
        case email(String)
        /// This exact phone number.
        case phoneNumber(String)
    }

    public var match: Match
    public var limit: Int
    public var offset: Int

    /// Creates a search; `limit` is clamped to 1...1000.
    public init(match: Match = .all, limit: Int = 50, offset: Int = 0) {
        self.match = match
        self.limit = min(max(limit, 1), 1000)
        self.offset = max(offset, 0)
    }

    /// Auth0's `q`: `email:"ana@example.com"`, `phone_number:"+1…"`, or bare text to find in
    /// either; empty or nil lists everyone.
    public init(query: String?, limit: Int, offset: Int) {
        let text = (query ?? "").trimmingCharacters(in: .whitespaces)
        func quoted(_ prefix: String) -> String? {
            guard text.hasPrefix(prefix) else { return nil }
            return String(text.dropFirst(prefix.count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        let match: Match =
            if text.isEmpty { .all } else if let email = quoted("email:") {
                .email(email)
            } else if let phone = quoted(
                "phone_number:")
            {
                .phoneNumber(phone)
            } else { .containing(text) }
        self.init(match: match, limit: limit, offset: offset)
    }
}
