import Foundation
import SesameCore
import SesameParsers
import Testing

@testable import SesameDelivery

@Suite("SMTP session state machine")
struct SMTPSessionTests {
    private let email = SMTPEmail(
        fromAddress: "login@example.com", fromName: "Sesame", toAddress: "ada@example.org",
        subject: "Your code", body: "123456", date: Date(timeIntervalSince1970: 0), messageID: "<id@example.com>"
    )

    private func configuration(_ security: SMTPConfiguration.Security, user: String? = nil) -> SMTPConfiguration {
        SMTPConfiguration(
            host: "127.0.0.1", fromAddress: "login@example.com", username: user,
            password: user.map { _ in "secret" }, security: security, heloName: "client.test")
    }

    private func reply(_ code: Int, _ lines: String...) -> SMTPReply { SMTPReply(code: code, lines: lines) }

    private func command(_ action: SMTPSession.Action) -> String? {
        guard case .send(let bytes) = action else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("plain session: EHLO, MAIL, RCPT, DATA, message, QUIT")
    func plain() throws {
        var session = SMTPSession(configuration: configuration(.none), email: email)
        #expect(command(try session.receive(reply(220, "hi"))) == "EHLO client.test\r\n")
        #expect(
            command(try session.receive(reply(250, "hi", "8BITMIME", "SIZE 1000")))
                == "MAIL FROM:<login@example.com> BODY=8BITMIME\r\n")
        #expect(command(try session.receive(reply(250, "ok"))) == "RCPT TO:<ada@example.org>\r\n")
        #expect(command(try session.receive(reply(250, "ok"))) == "DATA\r\n")
        let data = try #require(command(try session.receive(reply(354, "go"))))
        #expect(data.hasSuffix("\r\n123456\r\n.\r\n"))
        #expect(!session.delivered)
        #expect(command(try session.receive(reply(250, "queued"))) == "QUIT\r\n")
        #expect(session.delivered)
        #expect(try session.receive(reply(221, "bye")) == .finished)
    }

    @Test("EHLO refused: falls back to HELO without extensions")
    func heloFallback() throws {
        var session = SMTPSession(configuration: configuration(.none), email: email)
        _ = try session.receive(reply(220))
        #expect(command(try session.receive(reply(502, "no"))) == "HELO client.test\r\n")
        #expect(command(try session.receive(reply(250, "hi"))) == "MAIL FROM:<login@example.com>\r\n")
    }

    @Test("STARTTLS: upgrade, then a fresh EHLO before anything else")
    func startTLS() throws {
        var session = SMTPSession(configuration: configuration(.startTLS), email: email)
        _ = try session.receive(reply(220))
        #expect(command(try session.receive(reply(250, "hi", "STARTTLS"))) == "STARTTLS\r\n")
        #expect(try session.receive(reply(220, "go ahead")) == .startTLS)
        #expect(command(session.tlsEstablished()) == "EHLO client.test\r\n")
        #expect(command(try session.receive(reply(250, "hi"))) == "MAIL FROM:<login@example.com>\r\n")
    }

    @Test("STARTTLS required but not offered: refuse instead of downgrading")
    func noStartTLS() throws {
        var session = SMTPSession(configuration: configuration(.startTLS), email: email)
        _ = try session.receive(reply(220))
        #expect(throws: DeliveryError(message: "SMTP server does not offer STARTTLS")) {
            try session.receive(reply(250, "hi", "8BITMIME"))
        }
    }

    @Test("AUTH PLAIN sends both credentials at once")
    func authPlain() throws {
        var session = SMTPSession(configuration: configuration(.tls, user: "ada"), email: email)
        _ = try session.receive(reply(220))
        let auth = try #require(command(try session.receive(reply(250, "hi", "AUTH LOGIN PLAIN"))))
        #expect(auth == "AUTH PLAIN \(Data("\u{0}ada\u{0}secret".utf8).base64EncodedString())\r\n")
        #expect(command(try session.receive(reply(235, "ok")))?.hasPrefix("MAIL FROM:") == true)
    }

    @Test("AUTH LOGIN answers both 334 prompts")
    func authLogin() throws {
        var session = SMTPSession(configuration: configuration(.tls, user: "ada"), email: email)
        _ = try session.receive(reply(220))
        #expect(command(try session.receive(reply(250, "hi", "AUTH LOGIN"))) == "AUTH LOGIN\r\n")
        #expect(command(try session.receive(reply(334, "VXNlcm5hbWU6"))) == "YWRh\r\n")
        #expect(command(try session.receive(reply(334, "UGFzc3dvcmQ6"))) == "c2VjcmV0\r\n")
        #expect(command(try session.receive(reply(235, "ok")))?.hasPrefix("MAIL FROM:") == true)
    }

    @Test("credentials but no usable AUTH mechanism")
    func noAuth() throws {
        var session = SMTPSession(configuration: configuration(.none, user: "ada"), email: email)
        _ = try session.receive(reply(220))
        #expect(throws: DeliveryError.self) { try session.receive(reply(250, "hi", "AUTH CRAM-MD5")) }
    }

    @Test("refusals carry the SMTP code")
    func refusals() throws {
        var session = SMTPSession(configuration: configuration(.none), email: email)
        _ = try session.receive(reply(220))
        _ = try session.receive(reply(250, "hi"))
        _ = try session.receive(reply(250))
        let error = try #require(throws: DeliveryError.self) { try session.receive(reply(550, "5.1.1 no such user")) }
        #expect(
            error
                == DeliveryError(
                    message: "SMTP server refused the recipient: 550 5.1.1 no such user", providerCode: "550", permanent: true))
        var busy = SMTPSession(configuration: configuration(.none), email: email)
        #expect(throws: DeliveryError.self) { try busy.receive(reply(554, "go away")) }
    }
}
