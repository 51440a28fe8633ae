import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
@_spi(Sesame) import SesameClientCore

/// The `sesame` client commands' transport: the HTTP client the server already carries for
/// webhooks and text messages. `URLSession` would link libcurl and the libraries behind it
/// into the one executable, and every idle server would hold 5.5 MB of them.
enum ServerHTTPExchange {
    /// Answers larger than this are refused: the Authentication API's are a few kilobytes.
    static let maximumBody = 4 * 1024 * 1024
    /// As `URLSession`'s default request timeout.
    static let timeout = TimeAmount.seconds(60)

    /// One client for the process. A command makes one attempt to connect, as `URLSession`
    /// does: AsyncHTTPClient's shared client retries a refused connection until the request's
    /// deadline, and `sesame login` against a server that is down would wait a minute to say so.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .seconds(10)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Sends `request` on the command line's client.
    @Sendable static func send(_ request: HTTPExchange.Request) async throws -> HTTPExchange.Response {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.replaceOrAdd(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await client.execute(outgoing, timeout: timeout)
            body = try await response.body.collect(upTo: maximumBody)
        } catch {
            // NIO's errors have no localized description ("NIOCore.IOError error 1"); their
            // own description names the cause ("Connection refused (errno: 111)").
            throw Failure(errorDescription: String(describing: error))
        }
        return HTTPExchange.Response(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: Data(body.readableBytesView),
            reason: response.status.reasonPhrase)
    }
}

/// A failure to exchange, described as NIO describes it.
private struct Failure: LocalizedError {
    let errorDescription: String?
}

extension SesameClient {
    /// A client of `domain` for the command line, sending through ``ServerHTTPExchange``.
    init(commandLineDomain domain: URL, clientID: String) {
        self.init(domain: domain, clientID: clientID, exchange: ServerHTTPExchange.send)
    }
}
