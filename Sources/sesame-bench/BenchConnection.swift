import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Something that POSTs to a URL and returns the status and body: the HTTP client for setup,
/// or a worker's own connections for the measured requests.
protocol BenchPoster: Sendable {
    func send(_ url: String, body: [UInt8], headers: [(String, String)]) async throws -> BenchResponse
}

/// A response's status and whole body.
struct BenchResponse: Sendable {
    var status: HTTPResponseStatus
    var body: [UInt8]
}

extension HTTPClient: BenchPoster {
    func send(_ url: String, body: [UInt8], headers: [(String, String)]) async throws -> BenchResponse {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return BenchResponse(status: response.status, body: Array(bytes.readableBytesView))
    }
}

/// One measured worker's keep-alive connections, one to each server, on the load generator's
/// event loop. Each request leaves in one write and its response completes on the same thread
/// as the worker. The general-purpose client (a connection pool, a request state machine, a
/// streamed body, the head flushed before the body) cost the generator about 0.2 ms of CPU per
/// request, taken from the server that shares its cores. The connections close with the
/// executor's event loop group.
final class BenchConnections: BenchPoster {
    private let channels: [(base: String, channel: any Channel)]

    /// Connects to every `http://host:port` base on `loop`.
    init(bases: [String], loop: any EventLoop) async throws {
        var channels: [(String, any Channel)] = []
        for base in bases {
            guard let url = URL(string: base), let host = url.host, let port = url.port else {
                throw BenchError("not an http://host:port URL: \(base)")
            }
            let channel = try await ClientBootstrap(group: loop)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(BenchClientHandler(host: "\(host):\(port)"))
                    }
                }
                .connect(host: host, port: port).get()
            channels.append((base, channel))
        }
        self.channels = channels
    }

    func send(_ url: String, body: [UInt8], headers: [(String, String)]) async throws -> BenchResponse {
        guard let (base, channel) = channels.first(where: { url.hasPrefix($0.base) }) else {
            throw BenchError("no connection for \(url)")
        }
        let promise = channel.eventLoop.makePromise(of: BenchResponse.self)
        let request = BenchClientHandler.Request(
            path: String(url.dropFirst(base.count)), headers: headers, body: body, promise: promise)
        channel.writeAndFlush(request, promise: nil)
        return try await promise.futureResult.get()
    }
}

/// Turns a ``Request`` into one HTTP/1.1 POST and completes its promise with the response;
/// requests on one connection are answered in order.
private final class BenchClientHandler: ChannelDuplexHandler {
    struct Request: Sendable {
        var path: String
        var headers: [(String, String)]
        var body: [UInt8]
        var promise: EventLoopPromise<BenchResponse>
    }

    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Request
    typealias OutboundOut = HTTPClientRequestPart

    private let host: String
    private var waiting = CircularBuffer<EventLoopPromise<BenchResponse>>()
    private var response = BenchResponse(status: .ok, body: [])
    /// Why the connection is unusable, once it is: a request written after that is failed at
    /// once, since no response (and no `channelInactive`) would ever complete it.
    private var closed: (any Error)?

    init(host: String) { self.host = host }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        if let closed {
            request.promise.fail(closed)
            promise?.fail(closed)
            return
        }
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: request.path)
        head.headers.add(name: "host", value: host)
        head.headers.add(name: "content-length", value: String(request.body.count))
        for (name, value) in request.headers { head.headers.add(name: name, value: value) }
        waiting.append(request.promise)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: request.body)))), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            response = BenchResponse(status: head.status, body: [])
        case .body(let buffer):
            response.body += buffer.readableBytesView
        case .end:
            waiting.popFirst()?.succeed(response)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        closed = error
        failAll(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let error = closed ?? BenchError("the server closed the connection")
        closed = error
        failAll(error)
        context.fireChannelInactive()
    }

    private func failAll(_ error: any Error) {
        while let promise = waiting.popFirst() { promise.fail(error) }
    }
}
