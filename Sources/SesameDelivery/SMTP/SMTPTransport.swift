import NIOCore
import NIOPosix
import NIOSSL
import SesameCore
import SesameParsers

/// Runs an ``SMTPSession`` over a real connection: TCP via SwiftNIO, TLS via NIOSSL.
enum SMTPTransport {
    /// Connects, plays the whole dialogue and closes. Every failure surfaces as ``DeliveryError``.
    static func deliver(
        _ email: SMTPEmail,
        configuration: SMTPConfiguration,
        sslContext: NIOSSLContext?,
        group: any EventLoopGroup
    ) async throws {
        let endpoint = configuration.endpointDescription
        let serverHostname = sniHostname(configuration.host)
        let implicitTLS = configuration.security == .tls ? sslContext : nil
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(configuration.timeout.timeAmount)
                .connect(host: configuration.host, port: configuration.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let implicitTLS {
                            let tls = try NIOSSLClientHandler(context: implicitTLS, serverHostname: serverHostname)
                            try channel.pipeline.syncOperations.addHandler(tls)
                        }
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw DeliveryError(message: "SMTP server \(endpoint) unreachable")
        }

        var session = SMTPSession(configuration: configuration, email: email)
        do {
            try await channel.executeThenClose { inbound, outbound in
                var replies = inbound.makeAsyncIterator()
                var parser = SMTPReplyParser()
                while true {
                    let reply = try await readReply(from: &replies, parser: &parser, endpoint: endpoint)
                    var action = try session.receive(reply)
                    if action == .startTLS {
                        // Bytes already queued after "220 Ready" would be read as if they came
                        // over TLS: the STARTTLS command-injection attack (CVE-2011-0411 style).
                        guard !parser.hasBufferedInput, let sslContext else {
                            throw DeliveryError(message: "SMTP server \(endpoint) sent unexpected data before TLS")
                        }
                        try await startTLS(on: channel.channel, context: sslContext, serverHostname: serverHostname)
                        action = session.tlsEstablished()
                    }
                    switch action {
                    case .send(let bytes):
                        do {
                            try await outbound.write(ByteBuffer(bytes: bytes))
                        } catch {
                            // A write fails once the channel has closed; the inbound side holds
                            // the reason (a TLS alert, a reset), which says more than "closed".
                            _ = try await replies.next()
                            throw error
                        }
                    case .finished, .startTLS: return
                    }
                }
            }
        } catch {
            // Once the server has said 250 to the message, a lost QUIT changes nothing.
            if session.delivered { return }
            throw mapError(error, endpoint: endpoint)
        }
    }

    /// Reads until the parser has one complete reply.
    private static func readReply(
        from replies: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        parser: inout SMTPReplyParser,
        endpoint: String
    ) async throws -> SMTPReply {
        while true {
            do {
                if let reply = try parser.nextReply() { return reply }
            } catch {
                throw DeliveryError(message: "SMTP server \(endpoint) sent an invalid reply: \(error.reason)")
            }
            guard let bytes = try await replies.next() else {
                throw DeliveryError(message: "SMTP server \(endpoint) closed the connection")
            }
            parser.append(bytes.readableBytesView)
        }
    }

    /// Puts NIOSSL in front of the pipeline so everything after it is encrypted.
    private static func startTLS(on channel: any Channel, context: NIOSSLContext, serverHostname: String?) async throws {
        try await channel.eventLoop.submit {
            let tls = try NIOSSLClientHandler(context: context, serverHostname: serverHostname)
            try channel.pipeline.syncOperations.addHandler(tls, position: .first)
        }.get()
    }

    /// SNI must be a DNS name; for an IP literal NIOSSL verifies the certificate against the IP instead.
    static func sniHostname(_ host: String) -> String? {
        (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
    }

    private static func mapError(_ error: any Error, endpoint: String) -> DeliveryError {
        switch error {
        case let error as DeliveryError: error
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            DeliveryError(message: "TLS with SMTP server \(endpoint) failed")
        default:
            DeliveryError(message: "SMTP connection to \(endpoint) failed")
        }
    }
}

extension Duration {
    /// The same span as NIO's `TimeAmount`, saturating instead of overflowing.
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        let (nanos, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return .nanoseconds(overflow ? .max : nanos.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue)
    }
}
