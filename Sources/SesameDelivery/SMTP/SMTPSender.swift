import Foundation
public import NIOCore
public import NIOPosix
import NIOSSL
public import SesameCore

/// Sends email through an SMTP server, one connection per message.
///
/// ```swift
/// let sender = try SMTPSender(configuration: SMTPConfiguration(
///     host: "smtp.example.com", port: 465, fromAddress: "login@example.com", security: .tls))
/// try await sender.send(OutgoingMessage(channel: .email, recipient: "ada@example.com",
///     subject: "Your code", body: "123456", code: "123456", link: nil))
/// ```
///
/// Server refusals become ``DeliveryError`` with the SMTP reply code as `providerCode`;
/// an unreachable or silent server becomes a ``DeliveryError`` too, within
/// ``SMTPConfiguration/timeout``.
public struct SMTPSender: MessageSender {
    /// Where and how mail is sent.
    public let configuration: SMTPConfiguration
    private let eventLoopGroup: any EventLoopGroup
    /// Built once: loading trust roots and keys is too costly to repeat per message.
    private let sslContext: NIOSSLContext?

    /// Creates a sender. Throws when the TLS configuration cannot be loaded
    /// (unreadable certificate or key files).
    /// - Parameter eventLoopGroup: where connections run; NIO's shared group by default.
    public init(
        configuration: SMTPConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        sslContext =
            configuration.security == .none
            ? nil
            : try NIOSSLContext(configuration: configuration.tlsConfiguration)
    }

    /// Sends one email. Only `.email` messages are accepted.
    public func send(_ message: OutgoingMessage) async throws {
        guard message.channel == .email else {
            throw DeliveryError(message: "SMTP can only send email, not \(message.channel.rawValue)")
        }
        let email = makeEmail(message)
        // Render once up front so a bad address or header injection fails before any connection.
        _ = try SMTPMessageFormatter.render(email, allow8bit: true)
        let configuration = configuration
        let sslContext = sslContext
        let group = eventLoopGroup
        let endpoint = configuration.endpointDescription
        // Cancelling the transport is what unblocks it: NIO's async channel streams end their
        // waits on cancellation and the connection is closed.
        try await withDeadline(
            configuration.timeout,
            timeoutError: { DeliveryError(message: "SMTP server \(endpoint) did not answer in time") }
        ) {
            try await SMTPTransport.deliver(email, configuration: configuration, sslContext: sslContext, group: group)
        }
    }

    private func makeEmail(_ message: OutgoingMessage) -> SMTPEmail {
        // The sender's domain keeps Message-IDs unique across hosts (RFC 5322 §3.6.4).
        let domain = configuration.fromAddress.split(separator: "@").last.map(String.init) ?? configuration.heloName
        return SMTPEmail(
            fromAddress: configuration.fromAddress,
            fromName: configuration.fromName,
            toAddress: message.recipient,
            subject: message.subject,
            body: message.body,
            html: message.html,
            date: Date(),
            messageID: "<\(UUID().uuidString.lowercased())@\(domain)>"
        )
    }
}
