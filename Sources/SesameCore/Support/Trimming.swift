/// Trimming without Foundation's `CharacterSet`.
///
/// `trimmingCharacters(in:)` bridges through `NSString` and builds its set on each call; a login
/// trims the address and the message it sends, and that was about 1 % of an email-code login.
/// These trim exactly the scalars Foundation's `.whitespaces` and `.whitespacesAndNewlines`
/// name (a test compares them over every scalar).
extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: Foundation's `.whitespaces`
    /// (Unicode category Zs, U+0009 and U+200B).
    package func trimmingWhitespace() -> String {
        trimmingScalars(where: Unicode.Scalar.isWhitespace)
    }

    /// The text without leading and trailing white space and line breaks: Foundation's
    /// `.whitespacesAndNewlines` (categories Zs, Zl and Zp, U+0009 to U+000D, U+0085 and U+200B).
    package func trimmingWhitespaceAndNewlines() -> String {
        trimmingScalars(where: Unicode.Scalar.isWhitespaceOrNewline)
    }

    private func trimmingScalars(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
            let last = scalars.lastIndex(where: { !isTrimmed($0) })
        else { return "" }
        return String(self[first..<scalars.index(after: last)])
    }
}

extension Unicode.Scalar {
    /// Foundation's `CharacterSet.whitespaces`, which also counts the zero-width space (an
    /// Unicode space separator until Unicode 4.0.1).
    package static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
    }

    /// Foundation's `CharacterSet.whitespacesAndNewlines`.
    package static func isWhitespaceOrNewline(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x85, 0x200B: return true
        default:
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default: return false
            }
        }
    }
}
