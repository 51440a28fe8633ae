import Foundation
import SesameCore
import SesameDelivery
import Testing

/// SMTPSender failures that need no SMTP server at all.
@Suite("SMTP failures")
struct SMTPFailureTests {
    private func sender(port: Int, timeout: Duration = .seconds(5)) throws -> SMTPSender {
        try SMTPSender(
            configuration: SMTPConfiguration(
                host: "127.0.0.1", port: port, fromAddress: "login@sesame.test", security: .none, timeout: timeout))
    }

    private let message = OutgoingMessage(
        channel: .email, recipient: "ada@example.org", subject: "Code",
        body: "482915", code: "482915", link: nil)

    @Test("nothing listening: a DeliveryError naming the server")
    func unreachable() async throws {
        try await TestServers.withRefusingPort { port in
            await #expect(throws: DeliveryError(message: "SMTP server 127.0.0.1:\(port) unreachable")) {
                // The refusal comes at once; a short timeout could pass first on a starved
                // machine (CI ran this beside a release build) and name the wrong failure.
                try await sender(port: port, timeout: .seconds(60)).send(message)
            }
        }
    }

    @Test("a server that never greets: a DeliveryError once the timeout passes")
    func silentServer() async throws {
        try await TestServers.withSilentServer { port in
            await #expect(throws: DeliveryError(message: "SMTP server 127.0.0.1:\(port) did not answer in time")) {
                try await sender(port: port, timeout: .milliseconds(500)).send(message)
            }
        }
    }

    @Test("header injection is refused before any connection is made")
    func injectionBeforeConnecting() async throws {
        var evil = message
        evil.subject = "Code\r\nBcc: everyone@example.org"
        // Were a connection tried, the port would refuse it and the error would say so.
        try await TestServers.withRefusingPort { port in
            let error = try await #require(throws: DeliveryError.self) { try await sender(port: port).send(evil) }
            #expect(error.message == "Line breaks are not allowed in the email subject")
        }
    }

    @Test("SMS messages are refused")
    func wrongChannel() async throws {
        var sms = message
        sms.channel = .sms
        await #expect(throws: DeliveryError.self) { try await sender(port: 1).send(sms) }
    }
}
