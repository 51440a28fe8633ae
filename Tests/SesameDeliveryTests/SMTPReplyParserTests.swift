import SesameParsers
import Testing

@testable import SesameDelivery

@Suite("SMTP reply parser")
struct SMTPReplyParserTests {
    private func parse(_ text: String) throws -> [SMTPReply] {
        var parser = SMTPReplyParser()
        parser.append(Array(text.utf8))
        var replies: [SMTPReply] = []
        while let reply = try parser.nextReply() { replies.append(reply) }
        return replies
    }

    @Test("a single-line reply")
    func singleLine() throws {
        #expect(
            try parse("220 mail.example.com ESMTP ready\r\n") == [SMTPReply(code: 220, lines: ["mail.example.com ESMTP ready"])])
    }

    @Test("a multi-line EHLO reply keeps every line")
    func multiLine() throws {
        let replies = try parse("250-mail.example.com\r\n250-8BITMIME\r\n250-AUTH PLAIN LOGIN\r\n250 STARTTLS\r\n")
        #expect(replies == [SMTPReply(code: 250, lines: ["mail.example.com", "8BITMIME", "AUTH PLAIN LOGIN", "STARTTLS"])])
    }

    @Test("bytes split across reads, two replies in one read")
    func fragmented() throws {
        var parser = SMTPReplyParser()
        parser.append(Array("250-first\r\n25".utf8))
        #expect(try parser.nextReply() == nil)
        #expect(parser.hasBufferedInput)
        parser.append(Array("0 last\r\n354 go ahead\r\n".utf8))
        #expect(try parser.nextReply() == SMTPReply(code: 250, lines: ["first", "last"]))
        #expect(try parser.nextReply() == SMTPReply(code: 354, lines: ["go ahead"]))
        #expect(try parser.nextReply() == nil)
        #expect(!parser.hasBufferedInput)
    }

    @Test("a bare code and a bare LF are accepted")
    func lenient() throws {
        #expect(try parse("250\r\n221 bye\n") == [SMTPReply(code: 250, lines: [""]), SMTPReply(code: 221, lines: ["bye"])])
    }

    @Test(
        "malformed replies are refused",
        arguments: [
            "hello\r\n", "2x0 nope\r\n", "250?what\r\n", "999 out of range\r\n", "250-a\r\n251 b\r\n",
        ])
    func malformed(_ text: String) {
        #expect(throws: SMTPReplyParser.ParseError.self) { try parse(text) }
    }

    @Test("an endless line is refused instead of buffered forever")
    func overlong() {
        var parser = SMTPReplyParser()
        parser.append([UInt8](repeating: UInt8(ascii: "2"), count: SMTPReplyParser.maximumLineLength + 1))
        #expect(throws: SMTPReplyParser.ParseError.self) { try parser.nextReply() }
    }

    @Test("summary and positivity")
    func summary() {
        #expect(SMTPReply(code: 550, lines: ["5.1.1 no such user", "more"]).summary == "550 5.1.1 no such user")
        #expect(SMTPReply(code: 354, lines: []).isPositive)
        #expect(!SMTPReply(code: 421, lines: []).isPositive)
    }
}
