import Foundation
import Testing

@testable import SesameCore

/// The trims and the control check replace Foundation's `CharacterSet`s on hot paths, so each
/// must name exactly the scalars Foundation's set names, or an address Foundation would have
/// refused (or trimmed) would now pass.
@Suite("Trimming without CharacterSet")
struct TrimmingTests {
    static let allScalars = (0...0x10FFFF).compactMap(Unicode.Scalar.init(_:))

    @Test("each scalar predicate names exactly the scalars of Foundation's set")
    func predicatesMatchFoundation() {
        let pairs: [(CharacterSet, (Unicode.Scalar) -> Bool, String)] = [
            (.whitespaces, Unicode.Scalar.isWhitespace, "whitespaces"),
            (.whitespacesAndNewlines, Unicode.Scalar.isWhitespaceOrNewline, "whitespacesAndNewlines"),
            (
                CharacterSet(charactersIn: "<>()[]\\,;:\"").union(.controlCharacters), Identifier.isForbiddenInEmail,
                "forbidden in an address"
            ),
        ]
        for (set, predicate, name) in pairs {
            let differing = Self.allScalars.filter { set.contains($0) != predicate($0) }
            #expect(
                differing.isEmpty, "\(name): \(differing.count) differ, from U+\(String(differing.first?.value ?? 0, radix: 16))")
        }
    }

    @Test(
        "trims as Foundation trims, keeping what is inside",
        arguments: [
            "", " ", "\t\u{3000} a b \u{00A0}", " \n x \r\n", "\u{2028}y\u{2029}", "\u{85}z\u{85}", " \u{301}e ",
            "👩‍👩‍👧 ", "\u{200B}zero-width\u{200B}", "plain",
        ])
    func trimsAsFoundation(text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
        #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines))
        let inner = Substring("[\(text)]").dropFirst().dropLast()
        #expect(inner.trimmingWhitespace() == inner.trimmingCharacters(in: .whitespaces))
    }

    @Test("an address with a control or format character is refused, as before")
    func controlCharactersInAddresses() {
        #expect(Identifier.normalizedEmail("a\u{200E}b@example.com") == nil)  // left-to-right mark (Cf)
        #expect(Identifier.normalizedEmail("a\u{7}b@example.com") == nil)  // bell (Cc)
        #expect(Identifier.normalizedEmail("a,b@example.com") == nil)
        #expect(Identifier.normalizedEmail("\u{3000}Ana@Example.com\t") == "ana@example.com")
    }
}
