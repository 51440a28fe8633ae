import Foundation
import Hummingbird
import Logging
import SesameCore
import Testing

@testable import SesameServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Attacks on the server's connections themselves, over real sockets: a request body
/// trickled a byte at a time, and one client opening connection after connection.
@Suite("Attacks: slow bodies, connection floods", .serialized)
struct SlowClientTests {
    /// A server with the guarded HTTP/1.1 channel and a route that reads its body, on a port
    /// of its own with no other client (a test client's own connection would count too).
    static func run(
        limits: ConnectionLimits, idleTimeout: Int64 = 30, _ body: @escaping @Sendable (Int) async throws -> Void
    ) async throws {
        let router = Router()
        router.get("/") { _, _ in "ok" }
        router.post("/") { request, _ in
            var request = request
            return "read \(try await request.collectBody(upTo: 65536).readableBytes)"
        }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            server: .guardedHTTP1(configuration: .init(idleTimeout: .seconds(idleTimeout)), limits: limits),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        try await body(try #require(await iterator.next()))
    }

    /// Attack: a body sent a byte at a time, each byte well within the idle timeout, holds
    /// its connection as long as the client likes (and enough such clients hold them all).
    @Test("slow body: a body trickled a byte at a time is cut off at the request deadline")
    func trickledBody() async throws {
        let limits = ConnectionLimits(requestTimeout: 1, perIP: 64, proxies: .none)
        try await Self.run(limits: limits, idleTimeout: 30) { port in
            let socket = try RawSocket(port: port)
            let length = 40
            try socket.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: \(length)\r\n\r\n")
            var sent = 0
            // Every byte comes well inside the idle timeout; the whole body would take ~10 s.
            while sent < length, socket.isOpen() {
                try? socket.send("a")
                sent += 1
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(sent < length, "the server waited for the whole trickled body")
            #expect(!socket.isOpen(), "the connection is closed")
        }
    }

    @Test("a body that arrives in time, even in pieces, is answered")
    func bodyInPieces() async throws {
        let limits = ConnectionLimits(requestTimeout: 30, perIP: 64, proxies: .none)
        try await Self.run(limits: limits) { port in
            let socket = try RawSocket(port: port)
            try socket.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nab")
            try await Task.sleep(for: .milliseconds(100))
            try socket.send("cd")
            #expect(await socket.receive()?.contains("read 4") == true)
            try socket.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await socket.receive()?.contains("ok") == true, "the connection stays usable")
        }
    }

    /// Attack: one client opens connections until the server has no more to give (each held
    /// by a slow request or simply left open).
    @Test("connection flood: one address holds at most http_max_connections_per_ip connections")
    func connectionFlood() async throws {
        let limits = ConnectionLimits(requestTimeout: 30, perIP: 3, proxies: .none)
        try await Self.run(limits: limits) { port in
            let held = try (1...3).map { _ in try RawSocket(port: port) }
            for socket in held {
                try socket.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(await socket.receive()?.hasPrefix("HTTP/1.1 200") == true)
            }
            let fourth = try RawSocket(port: port)
            try? fourth.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await fourth.receive() == nil, "the fourth connection is closed unanswered")
            held[0].close()
            // The server notices the close on its own loop; a new connection fits once it has.
            var answered = false
            for _ in 0..<50 where !answered {
                let again = try RawSocket(port: port)
                try? again.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                answered = await again.receive()?.hasPrefix("HTTP/1.1 200") == true
                if !answered { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(answered, "a closed connection frees its place")
        }
    }

    @Test("a trusted proxy's connections are not capped: it carries many clients")
    func trustedProxyExempt() async throws {
        let proxies = ProxyPolicy(trusted: [IPRange("127.0.0.1")!])
        try await Self.run(limits: ConnectionLimits(requestTimeout: 30, perIP: 1, proxies: proxies)) { port in
            let sockets = try (1...3).map { _ in try RawSocket(port: port) }
            for socket in sockets {
                try socket.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(await socket.receive()?.hasPrefix("HTTP/1.1 200") == true)
            }
        }
    }

    @Test("http_request_timeout and http_max_connections_per_ip are read and checked")
    func configuration() async throws {
        let noFile = ["data_dir": FileManager.default.temporaryDirectory.appendingPathComponent("sesame-none-\(UUID())").path]
        let defaults = try await ServerConfiguration.load(flags: noFile, environment: [:])
        #expect(defaults.httpRequestTimeout == 30 && defaults.httpMaxConnectionsPerIP == 64)
        let set = try await ServerConfiguration.load(
            flags: noFile,
            environment: ["SESAME_HTTP_REQUEST_TIMEOUT": "10", "SESAME_HTTP_MAX_CONNECTIONS_PER_IP": "8"])
        #expect(set.httpRequestTimeout == 10 && set.httpMaxConnectionsPerIP == 8)
        await #expect(throws: ConfigurationError.self) {
            _ = try await ServerConfiguration.load(flags: noFile, environment: ["SESAME_HTTP_MAX_CONNECTIONS_PER_IP": "0"])
        }
    }
}

/// A blocking TCP client socket to 127.0.0.1, for sending requests byte by byte.
final class RawSocket {
    let descriptor: Int32
    private var closed = false

    init(port: Int) throws {
        #if canImport(Glibc)
            descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw SocketError(operation: "connect") }
    }

    deinit { close() }

    func send(_ text: String) throws {
        let sent = Array(text.utf8).withUnsafeBytes { bytes in
            #if canImport(Glibc)
                Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            #else
                Darwin.send(descriptor, bytes.baseAddress, bytes.count, 0)
            #endif
        }
        guard sent == text.utf8.count else { throw SocketError(operation: "send") }
    }

    /// What the server sent next; nil when it closed the connection or said nothing for 10 s.
    /// Polls without blocking: a blocked thread of Swift's small pool could be the one the
    /// server needs to answer.
    func receive() async -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<200 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 { return String(decoding: buffer.prefix(count), as: UTF8.self) }
            if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Whether the server has not closed the connection (a read that would wait means open).
    func isOpen() -> Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        return count > 0 || (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    }

    func close() {
        guard !closed else { return }
        closed = true
        shutdown(descriptor, Int32(SHUT_RDWR))
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #else
            _ = Darwin.close(descriptor)
        #endif
    }
}

struct SocketError: Error {
    let operation: String
}
