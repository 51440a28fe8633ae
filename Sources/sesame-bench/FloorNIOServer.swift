import Crypto
import CryptoExtras
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import SesameAPI
import SesameCore

/// `floor-server --stack nio`: the same two routes as the Hummingbird floor server on bare
/// SwiftNIO, one event loop per core, each request answered (and signed) on its connection's
/// loop: no task, no thread hop, no router. What remains is the kernel, HTTP/1.1 parsing and
/// the signature, so its ratio is the most any server on this machine allows this generator.
enum FloorNIOServer {
    static func run(port: Int) async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(FloorHandler(key: key))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        let bound = channel.localAddress?.port ?? port
        FileHandle.standardOutput.write(Data("floor server listening on 127.0.0.1:\(bound)\n".utf8))
        try await channel.closeFuture.get()
    }
}

/// Answers `/sign` with an RS256 JWT over the Hummingbird floor server's claims, and any other path (`/noop`,
/// `/health`) with a small JSON object.
private final class FloorHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let key: _RSA.Signing.PrivateKey
    private var path = ""
    private var keepAlive = true

    init(key: _RSA.Signing.PrivateKey) { self.key = key }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            (path, keepAlive) = (head.uri, head.isKeepAlive)
        case .body:
            break
        case .end:
            do {
                respond(context: context, status: .ok, body: try body(for: path))
            } catch {
                respond(context: context, status: .internalServerError, body: #"{"error":"server_error"}"#)
            }
        }
    }

    private func body(for path: String) throws -> String {
        guard path == "/sign" else { return #"{"ok":true}"# }
        let header = Base64URL.encode(Data(#"{"alg":"RS256","kid":"floor","typ":"JWT"}"#.utf8))
        let input = header + "." + Base64URL.encode(FloorServer.claims().directJSON() ?? [])
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return #"{"id_token":""# + input + "." + Base64URL.encode(signature.rawRepresentation) + #"","token_type":"Bearer"}"#
    }

    private func respond(context: ChannelHandlerContext, status: HTTPResponseStatus, body: String) {
        var head = HTTPResponseHead(version: .http1_1, status: status)
        head.headers.add(name: "content-type", value: "application/json")
        head.headers.add(name: "content-length", value: String(body.utf8.count))
        if !keepAlive { head.headers.add(name: "connection", value: "close") }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let context = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.whenComplete { _ in context.value.close(promise: nil) }
        }
    }
}
