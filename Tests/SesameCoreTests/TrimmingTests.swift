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

    /// The one-pass check of ASCII addresses stands in for the general one on nearly every
    /// login; an address it let through that the general check refuses would be stored.
    @Test("ASCII addresses: the one-pass check answers as the general check does")
    func asciiAddressCheck() {
        var samples = [
            "a@b.c", "@b.c", "a@", "a@.", "a@b.", "a@.b", "a@b..c", "a@@b.c", "a@b@c.d", ".a@b.c", "a.@b.c", "a..b@c.d",
            "a b@c.d", "a@b c.d", "a\t@b.c", "a\r\n@b.c", "a\u{7F}@b.c", "\"a\"@b.c", "a(b)@c.d", "a@[1.2.3.4]",
            String(repeating: "l", count: 64) + "@b.c", String(repeating: "l", count: 65) + "@b.c",
            "a@" + String(repeating: "d", count: 250) + ".c", "a@" + String(repeating: "d", count: 249) + ".c",
        ]
        // Random addresses from an alphabet weighted towards the characters that matter.
        var state: UInt64 = 0x5E5A_3E00
        let alphabet = Array("ab1-_+@@..  \t\r\n<>\"\u{1}\u{7F},;:[]()\\")
        for _ in 0..<20_000 {
            var text = ""
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            for _ in 0..<Int(state >> 59) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text.append(alphabet[Int(state >> 33) % alphabet.count])
            }
            samples.append(text)
        }
        for sample in samples {
            #expect(Identifier.isValidASCIIEmail(sample.utf8) == Identifier.isValidEmail(sample), "\(sample.debugDescription)")
        }
        #expect(samples.contains { Identifier.isValidEmail($0) } && samples.contains { !Identifier.isValidEmail($0) })
    }

    @Test("an address with a control or format character is refused, as before")
    func controlCharactersInAddresses() {
        #expect(Identifier.normalizedEmail("a\u{200E}b@example.com") == nil)  // left-to-right mark (Cf)
        #expect(Identifier.normalizedEmail("a\u{7}b@example.com") == nil)  // bell (Cc)
        #expect(Identifier.normalizedEmail("a,b@example.com") == nil)
        #expect(Identifier.normalizedEmail("\u{3000}Ana@Example.com\t") == "ana@example.com")
    }
}
