import Foundation
import NIOCore
import NIOPosix
import SesameCore
import Synchronization
import Testing

@testable import SesameDelivery

/// Webhook calls reach only public addresses, or the private ones the operator allowed, and
/// never follow a redirect.
@Suite("Webhook transport: private addresses and redirects")
struct WebhookTransportTests {
    static let loopbackAllowed = WebhookAddressPolicy.parse(["127.0.0.0/8"]).policy
    /// How long a call that should be answered may take: generous, because with every suite
    /// running at once on a 2-core CI machine a test's task can wait many seconds for a thread,
    /// and a run once failed when a 10-second limit ran out before the answer was read.
    static let answerTimeout: Duration = .seconds(60)

    static func post(_ transport: HTTPWebhookTransport, _ url: String) async throws {
        try await transport.post(url: url, headers: [("webhook-id", "msg_1")], body: Data("{}".utf8))
    }

    /// Attack (redirect to the private network): an endpoint at a public address answers
    /// `302 Location: http://127.0.0.1:…/` and the server's own call, followed, lands on a
    /// loopback service the attacker cannot reach.
    @Test("a redirect is a failed attempt, never followed")
    func webhookRedirectToLoopback() async throws {
        try await TinyHTTPServer.with(status: "200 OK") { target in
            try await TinyHTTPServer.with(
                status: "302 Found", headers: ["Location: http://127.0.0.1:\(target.port)/steal"]
            ) { redirector in
                let transport = HTTPWebhookTransport(policy: Self.loopbackAllowed, timeout: Self.answerTimeout)
                await #expect {
                    try await Self.post(transport, "http://127.0.0.1:\(redirector.port)/hooks")
                } throws: { error in
                    (error as? DeliveryError)?.message.contains("302") == true
                }
                #expect(redirector.requests.count == 1)
                #expect(target.requests.isEmpty, "the redirect was followed")
            }
        }
    }

    /// Attack (server-side request forgery): an endpoint registered by name whose name
    /// resolves, now or after a DNS change (rebinding), to loopback or a metadata service.
    @Test("a name that resolves to a private address is refused at send time, before connecting")
    func webhookDNSRebindingToLoopback() async throws {
        try await TinyHTTPServer.with(status: "200 OK") { receiver in
            let strict = HTTPWebhookTransport(policy: WebhookAddressPolicy(), timeout: Self.answerTimeout)
            await #expect {
                try await Self.post(strict, "http://localhost:\(receiver.port)/hooks")
            } throws: { error in
                let error = error as? DeliveryError
                return error?.isPermanent == true && error?.message.contains("private address") == true
            }
            let rebinding = HTTPWebhookTransport(
                policy: WebhookAddressPolicy(), timeout: Self.answerTimeout,
                resolve: { _ in [IPAddress("93.184.216.34")!, IPAddress("127.0.0.1")!] })
            await #expect(throws: DeliveryError.self) {
                try await Self.post(rebinding, "http://hooks.example.com:\(receiver.port)/hooks")
            }
            #expect(receiver.requests.isEmpty, "the private address was reached")
        }
    }

    /// Attack (cloud credentials): the metadata service at 169.254.169.254, by address or by a
    /// name that points there, hands out the machine's credentials.
    @Test("metadata, link-local, RFC 1918, CGNAT and unique-local addresses are refused without a connection")
    func webhookToMetadataAddress() async throws {
        let strict = HTTPWebhookTransport(policy: WebhookAddressPolicy(), timeout: .seconds(1))
        for url in [
            "http://169.254.169.254/latest/meta-data/", "https://10.0.0.1/x", "https://192.168.0.10/x", "https://100.64.1.1/x",
            "https://[fd12::1]/x", "https://[::1]/x", "https://0.0.0.0/x",
        ] {
            await #expect("\(url)") {
                try await Self.post(strict, url)
            } throws: { error in
                (error as? DeliveryError)?.message.contains("private address") == true
            }
        }
        let named = HTTPWebhookTransport(
            policy: WebhookAddressPolicy(), timeout: .seconds(1), resolve: { _ in [IPAddress("169.254.169.254")!] })
        await #expect(throws: DeliveryError.self) { try await Self.post(named, "https://metadata.example.com/x") }
    }

    @Test("allowed private hosts and ranges are reached, at the address that was checked")
    func allowedPrivateHosts() async throws {
        try await TinyHTTPServer.with(status: "204 No Content") { receiver in
            try await Self.post(
                HTTPWebhookTransport(policy: Self.loopbackAllowed, timeout: Self.answerTimeout),
                "http://localhost:\(receiver.port)/hooks")
            // A name only the injected resolver knows: the call goes to the checked address
            // and still names the host.
            let byName = HTTPWebhookTransport(
                policy: WebhookAddressPolicy.parse(["hooks.internal"]).policy, timeout: Self.answerTimeout,
                resolve: { _ in [IPAddress("127.0.0.1")!] })
            try await Self.post(byName, "http://hooks.internal:\(receiver.port)/hooks")
            let requests = receiver.requests
            #expect(requests.count == 2)
            #expect(requests.last?.lowercased().contains("host: hooks.internal") == true, "\(requests)")
        }
    }
}

/// A one-answer HTTP server on 127.0.0.1 that records each request's head.
final class TinyHTTPServer: Sendable {
    let port: Int
    private let recorded = Mutex<[String]>([])

    private init(port: Int) {
        self.port = port
    }

    /// The heads of the requests received so far.
    var requests: [String] { recorded.withLock { $0 } }

    /// Runs `body` with a server answering every request with `status` and `headers`.
    static func with<Result>(
        status: String, headers: [String] = [], _ body: (TinyHTTPServer) async throws -> Result
    ) async throws -> Result {
        let answer =
            (["HTTP/1.1 \(status)", "Content-Length: 0", "Connection: close"] + headers).joined(separator: "\r\n")
            + "\r\n\r\n"
        let box = Mutex<TinyHTTPServer?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.pipeline.addHandler(
                    Handler(answer: answer) { head in box.withLock { $0?.recorded.withLock { $0.append(head) } } })
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = TinyHTTPServer(port: channel.localAddress?.port ?? 0)
        box.withLock { $0 = server }
        do {
            let result = try await body(server)
            try? await channel.close()
            return result
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// Reads a request head, records it, answers and closes.
    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let answer: String
        let record: @Sendable (String) -> Void
        var received = ""
        var answered = false

        init(answer: String, record: @escaping @Sendable (String) -> Void) {
            self.answer = answer
            self.record = record
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            received += buffer.readString(length: buffer.readableBytes) ?? ""
            guard !answered, let end = received.range(of: "\r\n\r\n") else { return }
            // Read the whole body before answering and closing: closing on unread bytes resets
            // the connection, which can discard the answer.
            let length =
                received[..<end.lowerBound].split(separator: "\r\n")
                .first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            guard received[end.upperBound...].utf8.count >= length else { return }
            answered = true
            record(String(received[..<end.lowerBound]))
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer))).whenComplete { _ in
                bound.value.close(promise: nil)
            }
        }
    }
}
