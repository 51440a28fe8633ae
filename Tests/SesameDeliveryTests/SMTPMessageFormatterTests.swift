import Foundation
import SesameCore
import Testing

@testable import SesameDelivery

@Suite("SMTP message formatting")
struct SMTPMessageFormatterTests {
    private func email(subject: String? = "Your code", body: String = "Code: 123456", to: String = "ada@example.org") -> SMTPEmail
    {
        SMTPEmail(
            fromAddress: "login@example.com", fromName: "Sesame Login", toAddress: to, subject: subject,
            body: body, date: Date(timeIntervalSince1970: 1_751_371_200), messageID: "<m1@example.com>")
    }

    private func render(_ email: SMTPEmail, allow8bit: Bool = false) throws -> String {
        String(decoding: try SMTPMessageFormatter.render(email, allow8bit: allow8bit), as: UTF8.self)
    }

    /// Decodes one `=?UTF-8?B?…?=` word, to check encoded headers round-trip.
    private func decodeWord(_ word: Substring) -> String? {
        guard word.hasPrefix("=?UTF-8?B?"), word.hasSuffix("?=") else { return nil }
        return Data(base64Encoded: String(word.dropFirst(10).dropLast(2))).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("headers, blank line, body and terminator, all with CRLF")
    func layout() throws {
        let text = try render(email())
        #expect(
            text
                == [
                    "Date: Tue, 01 Jul 2025 12:00:00 +0000",
                    "From: \"Sesame Login\" <login@example.com>",
                    "To: <ada@example.org>",
                    "Subject: Your code",
                    "Message-ID: <m1@example.com>",
                    "MIME-Version: 1.0",
                    "Content-Type: text/plain; charset=utf-8",
                    "Content-Transfer-Encoding: 7bit",
                    "Auto-Submitted: auto-generated",
                    "",
                    "Code: 123456",
                    ".",
                    "",
                ].joined(separator: "\r\n"))
    }

    @Test("dot-stuffing doubles a leading dot only")
    func dotStuffing() throws {
        #expect(SMTPMessageFormatter.dotStuff(Array(".".utf8)) == Array("..".utf8))
        #expect(SMTPMessageFormatter.dotStuff(Array(".hidden".utf8)) == Array("..hidden".utf8))
        #expect(SMTPMessageFormatter.dotStuff(Array("a.b".utf8)) == Array("a.b".utf8))
        let text = try render(email(body: "line\n.\n..two\nend"))
        #expect(text.hasSuffix("\r\n\r\nline\r\n..\r\n...two\r\nend\r\n.\r\n"))
    }

    @Test("LF, CR and CRLF all become CRLF; no bare LF reaches the wire")
    func lineEndings() throws {
        #expect(SMTPMessageFormatter.splitLines(Array("a\nb\rc\r\nd\n".utf8)) == ["a", "b", "c", "d"].map { Array($0.utf8) })
        let text = try render(email(body: "a\nb\rc"))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\r"))
    }

    @Test("non-ASCII body: 8bit when the server allows it, else quoted-printable")
    func bodyEncoding() throws {
        let body = "Bonjour Zoé, votre code : 123456 ✓"
        let eight = try render(email(body: body), allow8bit: true)
        #expect(eight.contains("Content-Transfer-Encoding: 8bit\r\n"))
        #expect(eight.contains(body))
        let qp = try render(email(body: body), allow8bit: false)
        #expect(qp.contains("Content-Transfer-Encoding: quoted-printable\r\n"))
        #expect(qp.contains("Bonjour Zo=C3=A9, votre code : 123456 =E2=9C=93"))
        #expect(qp.utf8.allSatisfy { $0 < 128 })
    }

    @Test("quoted-printable keeps lines within 76 characters and protects trailing blanks")
    func quotedPrintable() {
        let lines = SMTPMessageFormatter.quotedPrintable(Array((String(repeating: "é", count: 40) + "=x ").utf8))
        #expect(lines.allSatisfy { $0.count <= 76 })
        #expect(lines.dropLast().allSatisfy { $0.last == UInt8(ascii: "=") })
        #expect(String(decoding: lines.last ?? [], as: UTF8.self).hasSuffix("=3Dx=20"))
        #expect(SMTPMessageFormatter.quotedPrintable([]) == [[]])
    }

    @Test("a body line over 998 octets is sent quoted-printable even if ASCII")
    func longLine() throws {
        let text = try render(email(body: String(repeating: "a", count: 1200)), allow8bit: true)
        #expect(text.contains("Content-Transfer-Encoding: quoted-printable"))
        #expect(text.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 998 })
    }

    @Test("non-ASCII subject becomes RFC 2047 encoded-words of at most 75 characters")
    func encodedSubject() {
        let subject = "Votre code de connexion à Sésame — ne le partagez avec personne, même pas nous 🔐"
        let encoded = SMTPMessageFormatter.encodeHeaderText(subject)
        let words = encoded.split(separator: "\r\n ")
        #expect(words.count > 1)
        #expect(words.allSatisfy { $0.count <= 75 })
        #expect(words.compactMap(decodeWord).joined() == subject)
        #expect(SMTPMessageFormatter.encodeHeaderText("Plain ASCII") == "Plain ASCII")
    }

    @Test("display names are quoted or encoded")
    func displayNames() throws {
        #expect(
            try SMTPMessageFormatter.mailbox(address: "a@b.c", name: #"Ada "the" \ Admin"#) == #""Ada \"the\" \\ Admin" <a@b.c>"#)
        #expect(try SMTPMessageFormatter.mailbox(address: "a@b.c", name: nil) == "<a@b.c>")
        #expect(try SMTPMessageFormatter.mailbox(address: "a@b.c", name: "Zoé") == "=?UTF-8?B?Wm/DqQ==?= <a@b.c>")
    }

    @Test(
        "CR or LF in recipient, subject or name is refused, not stripped",
        arguments: [
            ("ada@example.org\r\nBcc: eve@example.org", "Hi", "Sesame"),
            ("ada@example.org", "Hi\r\nBcc: eve@example.org", "Sesame"),
            ("ada@example.org", "Hi\nX-Evil: 1", "Sesame"),
            ("ada@example.org", "Hi", "Sesame\rBcc: eve@example.org"),
        ])
    func headerInjection(recipient: String, subject: String, name: String) {
        var message = email(subject: subject, to: recipient)
        message.fromName = name
        let error = #expect(throws: DeliveryError.self) { try SMTPMessageFormatter.render(message, allow8bit: true) }
        #expect(error?.message.contains("Line breaks are not allowed") == true)
    }

    @Test(
        "addresses that could break out of <…> are refused",
        arguments: [
            "ada@example.org>", "<ada@example.org", "ada example@org", "no-at-sign", "@example.org", "ada@", "zoé@example.org",
        ])
    func badAddresses(_ address: String) {
        #expect(throws: DeliveryError.self) { try SMTPMessageFormatter.validateAddress(address) }
    }

    @Test("with HTML: multipart/alternative, text then HTML, each part encoded on its own, the boundary in neither")
    func multipart() throws {
        var message = email(body: "Your code is 123456")
        message.html = "<p lang=\"fr\">Votre code\u{00A0}: <b>123456</b></p>\n<p>=_sesame_m1examplecom</p>"
        let text = try render(message, allow8bit: false)
        let boundary = try #require(
            text.split(separator: "\r\n").first { $0.hasPrefix("Content-Type: multipart/alternative") }?
                .split(separator: "\"").dropFirst().first.map(String.init))
        #expect(!message.html!.contains(boundary + "\r") && boundary != "=_sesame_m1examplecom")
        let parts = text.components(separatedBy: "--\(boundary)")
        #expect(parts.count == 4 && parts[3].hasPrefix("--\r\n.\r\n"), "two parts and a closing delimiter")
        #expect(parts[1].contains("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nYour code"))
        #expect(parts[2].contains("Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable"))
        #expect(parts[2].contains("Votre code=C2=A0:"), "non-ASCII HTML is quoted-printable without 8BITMIME")
        #expect(text.contains("Auto-Submitted: auto-generated\r\n\r\nThis is a multi-part message"))
    }
}
