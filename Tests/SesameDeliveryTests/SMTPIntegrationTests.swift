import Foundation
import NIOSSL
import SesameCore
import SesameDelivery
import Testing

/// SMTPSender against a real SMTP server: aiosmtpd via Tests/e2e/smtp_sink.py.
@Suite("SMTP against aiosmtpd", .serialized)
struct SMTPIntegrationTests {
    /// What one test run of the sink gives back.
    struct Sink {
        var port: Int
        var messages: URL
        var certificate: URL
    }

    /// Starts smtp_sink.py with `options`, runs `body`, and stops the sink.
    @discardableResult
    private func withSink<Result>(_ options: [String] = [], _ body: (Sink) async throws -> Result) async throws -> Result {
        try TestServers.requireAiosmtpd()
        let directory = try TestServers.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let messages = directory.appendingPathComponent("mail.jsonl")
        let tls = directory.appendingPathComponent("tls")
        let arguments = ["--out", messages.path, "--cert-dir", tls.path] + options
        return try await TestServers.withPythonServer("smtp_sink.py", arguments: arguments, logDirectory: directory) {
            try await body(Sink(port: $0, messages: messages, certificate: tls.appendingPathComponent("cert.pem")))
        }
    }

    private func configuration(_ sink: Sink, security: SMTPConfiguration.Security = .none) throws -> SMTPConfiguration {
        // Generous: in CI every suite shares two cores, and a send that works takes milliseconds.
        var config = SMTPConfiguration(
            host: "127.0.0.1", port: sink.port, fromAddress: "login@sesame.test",
            fromName: "Sesame Login", security: security,
            timeout: .seconds(60), heloName: "sesame.test")
        if security != .none {
            // Full verification against the sink's own certificate, issued for IP 127.0.0.1.
            try config.trustCertificates(fromPEMFile: sink.certificate.path)
        }
        return config
    }

    private func codeEmail(to recipient: String = "ada@example.org", subject: String = "Your sign-in code", body: String? = nil)
        -> OutgoingMessage
    {
        OutgoingMessage(
            channel: .email, recipient: recipient, subject: subject,
            body: body ?? "Your code is 482915.\n.\nIt expires in 5 minutes.", code: "482915", link: nil)
    }

    private func onlyMessage(_ sink: Sink) throws -> [String: Any] {
        let messages = try TestServers.readJSONLines(sink.messages)
        try #require(messages.count == 1)
        return messages[0]
    }

    @Test("a code email arrives with the right envelope, headers and body")
    func plainDelivery() async throws {
        try await withSink { sink in
            try await SMTPSender(configuration: try configuration(sink)).send(codeEmail())
            let message = try onlyMessage(sink)
            #expect(message["mail_from"] as? String == "login@sesame.test")
            #expect(message["rcpt_tos"] as? [String] == ["ada@example.org"])
            #expect(message["helo"] as? String == "sesame.test")
            let data = try #require(message["data"] as? String)
            for header in [
                "From: \"Sesame Login\" <login@sesame.test>", "To: <ada@example.org>",
                "Subject: Your sign-in code", "MIME-Version: 1.0",
                "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 7bit",
            ] {
                #expect(data.contains("\r\n\(header)\r\n") || data.hasPrefix("\(header)\r\n"), "missing \(header)")
            }
            #expect(data.hasPrefix("Date: "))
            #expect(data.contains("\r\nMessage-ID: <") && data.contains("@sesame.test>\r\n"))
            // aiosmtpd removes the dot-stuffing, so the lone "." comes back as it was written.
            #expect(data.hasSuffix("\r\n\r\nYour code is 482915.\r\n.\r\nIt expires in 5 minutes.\r\n"))
        }
    }

    @Test("non-ASCII subject and body travel as RFC 2047 and 8BITMIME")
    func unicode() async throws {
        try await withSink { sink in
            let body = "Votre code : 482915 — à bientôt ✓"
            try await SMTPSender(configuration: try configuration(sink)).send(
                codeEmail(subject: "Code de connexion Sésame", body: body))
            let message = try onlyMessage(sink)
            #expect((message["mail_options"] as? [String])?.contains("BODY=8BITMIME") == true)
            let data = try #require(message["data"] as? String)
            #expect(data.contains("\r\nSubject: =?UTF-8?B?\(Data("Code de connexion Sésame".utf8).base64EncodedString())?=\r\n"))
            #expect(data.contains("Content-Transfer-Encoding: 8bit\r\n"))
            #expect(data.hasSuffix("\r\n\r\n\(body)\r\n"))
        }
    }

    @Test("STARTTLS with AUTH PLAIN against a server that requires both")
    func startTLSAuthPlain() async throws {
        try await withSink(["--starttls", "--auth", "mailer:s3cret"]) { sink in
            var config = try configuration(sink, security: .startTLS)
            config.username = "mailer"
            config.password = "s3cret"
            try await SMTPSender(configuration: config).send(codeEmail())
            let message = try onlyMessage(sink)
            #expect(message["tls"] as? Bool == true)
            #expect(message["auth_login"] as? String == "mailer")
        }
    }

    @Test("AUTH LOGIN when the server does not offer PLAIN")
    func authLogin() async throws {
        try await withSink(["--starttls", "--auth", "mailer:s3cret", "--exclude-auth", "PLAIN"]) { sink in
            var config = try configuration(sink, security: .startTLS)
            config.username = "mailer"
            config.password = "s3cret"
            try await SMTPSender(configuration: config).send(codeEmail())
            #expect(try onlyMessage(sink)["auth_login"] as? String == "mailer")
        }
    }

    @Test("implicit TLS from the first byte")
    func implicitTLS() async throws {
        try await withSink(["--implicit-tls"]) { sink in
            try await SMTPSender(configuration: try configuration(sink, security: .tls)).send(codeEmail())
            #expect(try onlyMessage(sink)["tls"] as? Bool == true)
        }
    }

    @Test("a wrong password is a DeliveryError with code 535")
    func wrongPassword() async throws {
        try await withSink(["--starttls", "--auth", "mailer:s3cret"]) { sink in
            var config = try configuration(sink, security: .startTLS)
            config.username = "mailer"
            config.password = "wrong"
            let error = try await #require(throws: DeliveryError.self) {
                try await SMTPSender(configuration: config).send(codeEmail())
            }
            #expect(error.providerCode == "535")
            #expect(try TestServers.readJSONLines(sink.messages).isEmpty)
        }
    }

    @Test("an untrusted certificate fails the TLS handshake")
    func untrustedCertificate() async throws {
        try await withSink(["--starttls"]) { sink in
            var config = try configuration(sink, security: .startTLS)
            config.tlsConfiguration = .makeClientConfiguration()
            let error = try await #require(throws: DeliveryError.self) {
                try await SMTPSender(configuration: config).send(codeEmail())
            }
            #expect(error.message == "TLS with SMTP server 127.0.0.1:\(sink.port) failed")
        }
    }

    @Test("STARTTLS configured but not offered: no downgrade to plain text")
    func noDowngrade() async throws {
        try await withSink { sink in
            var config = try configuration(sink)
            config.security = .startTLS
            await #expect(throws: DeliveryError(message: "SMTP server does not offer STARTTLS")) {
                try await SMTPSender(configuration: config).send(codeEmail())
            }
        }
    }

    @Test("a server that rejects EHLO gets HELO and a quoted-printable body")
    func heloFallback() async throws {
        try await withSink(["--no-ehlo"]) { sink in
            try await SMTPSender(configuration: try configuration(sink)).send(codeEmail(body: "Zoé: 482915"))
            let data = try #require(try onlyMessage(sink)["data"] as? String)
            #expect(data.contains("Content-Transfer-Encoding: quoted-printable\r\n"))
            #expect(data.hasSuffix("\r\n\r\nZo=C3=A9: 482915\r\n"))
        }
    }
}
