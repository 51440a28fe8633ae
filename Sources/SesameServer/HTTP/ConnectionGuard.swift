import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import SesameCore
import Synchronization

/// How long one request may take to arrive and how many connections one client may hold:
/// the two limits that keep a client sending slowly from holding the server's connections.
///
/// The idle timeout alone does not bound a request: Hummingbird counts any byte of a body as
/// activity, so a client trickling a body a byte at a time held its connection for as long as
/// it liked, and with many connections, the server.
struct ConnectionLimits: Sendable {
    /// Seconds from a request's first byte to its last (headers and body).
    var requestTimeout: Int
    /// Open connections per client address (IPv6 per /64); trusted proxies are exempt.
    var perIP: Int
    /// Whose connections are exempt from the cap: a proxy carries many clients.
    var proxies: ProxyPolicy
}

/// HTTP/1.1 as Hummingbird serves it, with ``ConnectionLimits`` in front: a connection past
/// its client's cap is closed at once, and one whose request has not fully arrived within the
/// deadline is closed.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let responder: HTTPChannelHandler.Responder
    let configuration: HTTP1Channel.Configuration
    let limits: ConnectionLimits
    let counter: ConnectionCounter

    init(responder: @escaping HTTPChannelHandler.Responder, configuration: HTTP1Channel.Configuration, limits: ConnectionLimits) {
        self.responder = responder
        self.configuration = configuration
        self.limits = limits
        counter = ConnectionCounter(limit: limits.perIP)
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let peer = channel.remoteAddress?.ipAddress.flatMap { IPAddress($0) }
        let admitted = limits.proxies.isTrustedPeer(peer) ? .exempt : counter.open(peer)
        if case .counted(let key) = admitted {
            channel.closeFuture.whenComplete { _ in counter.close(key) }
        }
        let clock = RequestClock(timeout: .seconds(Int64(limits.requestTimeout)))
        var configuration = configuration
        let additional = configuration.additionalChannelHandlers
        configuration.additionalChannelHandlers = { [RequestEndHandler(clock: clock)] + additional() }
        do {
            // First in the pipeline, so the deadline starts with the request's first byte.
            try channel.pipeline.syncOperations.addHandler(RequestStartHandler(clock: clock), position: .first)
            if case .refused = admitted {
                logger.notice(
                    "connection refused: too many open from one client",
                    metadata: ["client_ip": "\(peer?.description ?? "unknown")", "limit": "\(limits.perIP)"])
                try channel.pipeline.syncOperations.addHandler(CloseOnActiveHandler(), position: .first)
            }
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return HTTP1Channel(responder: responder, configuration: configuration).setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await HTTP1Channel(responder: responder, configuration: configuration).handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with ``ConnectionLimits``.
    static func guardedHTTP1(configuration: HTTP1Channel.Configuration, limits: ConnectionLimits) -> HTTPServerBuilder {
        .init { responder in GuardedHTTP1Channel(responder: responder, configuration: configuration, limits: limits) }
    }
}

/// The open connections of each client address, across all event loops.
final class ConnectionCounter: Sendable {
    enum Admission {
        /// Counted under this key until the connection closes.
        case counted(String)
        /// Not counted: a trusted proxy, or a peer without an IP address.
        case exempt
        /// Over the cap: to be closed at once.
        case refused
    }

    let limit: Int
    private let open = Mutex<[String: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Admits one more connection from `peer`, or refuses it.
    func open(_ peer: IPAddress?) -> Admission {
        guard let key = peer?.clientKey else { return .exempt }
        return open.withLock { open in
            let count = open[key, default: 0]
            guard count < limit else { return .refused }
            open[key] = count + 1
            return .counted(key)
        }
    }

    /// One connection of `key` closed.
    func close(_ key: String) {
        open.withLock { open in
            let count = open[key, default: 1] - 1
            open[key] = count > 0 ? count : nil
        }
    }

    /// The connections `key` holds now (for tests).
    func count(_ key: String) -> Int {
        open.withLock { $0[key, default: 0] }
    }
}

/// One connection's request deadline, shared by the handler that sees its bytes arrive and
/// the one that sees its requests end. Used only on the connection's event loop (hence
/// unchecked: the pipeline is built on that loop too).
final class RequestClock: @unchecked Sendable {
    let timeout: TimeAmount
    /// When the request being read began; nil between requests.
    private var began: NIODeadline?
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    /// Bytes arrived: the first of a request begins its time.
    func bytesArrived() {
        if began == nil { began = .now() }
    }

    /// After the bytes went through the parser: a request still incomplete gets its deadline.
    /// (Most requests arrive in one read and end before this, so nothing is ever scheduled.)
    func armIfReading(_ context: ChannelHandlerContext) {
        guard let began, deadline == nil else { return }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(deadline: began + timeout) { [weak self] in
            self?.deadline = nil
            // Too slow to be a client that means it: the socket is closed without an answer,
            // which would need the rest of the request to frame.
            context.close(promise: nil)
        }
    }

    /// The request arrived in full, or the connection is gone.
    func requestEnded() {
        began = nil
        deadline?.cancel()
        deadline = nil
    }
}

/// Sees a connection's bytes before HTTP parsing: the first byte of a request starts its deadline.
final class RequestStartHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let clock: RequestClock

    init(clock: RequestClock) {
        self.clock = clock
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        clock.bytesArrived()
        context.fireChannelRead(data)
        clock.armIfReading(context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        clock.requestEnded()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        clock.requestEnded()
    }
}

/// Sees parsed requests: a request's end stops its deadline, so a slow handler or response
/// never counts against it.
final class RequestEndHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    let clock: RequestClock

    init(clock: RequestClock) {
        self.clock = clock
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { clock.requestEnded() }
        context.fireChannelRead(data)
    }
}

/// Closes a connection as soon as it is open: a client over its connection cap.
final class CloseOnActiveHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { context.close(promise: nil) }
    }

    func channelActive(context: ChannelHandlerContext) {
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
