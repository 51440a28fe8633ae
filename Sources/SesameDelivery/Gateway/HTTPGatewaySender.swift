public import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
public import SesameCore

/// Sends messages through a custom HTTP gateway: texts the way Auth0's legacy "SMS gateway"
/// option does, `POST {"recipient", "body", "sender"}` as JSON with an optional
/// `Authorization: Bearer` HS256 token, and email the same way with a `subject` and an
/// `html` alternative added, so
/// SES, Postmark or an internal mailer plug in through a small adapter.
///
/// Any 2xx answer means sent. Otherwise the error's text is the body's `message`
/// (or `error_description`/`error`) when the gateway sent JSON.
public struct HTTPGatewaySender: MessageSender {
    /// The gateway and its authentication.
    public let configuration: HTTPGatewayConfiguration
    private let client: HTTPClient

    /// Creates a sender that uses `client` (AsyncHTTPClient's process-wide shared client unless
    /// given); the caller keeps a client it passes running and shuts it down.
    public init(configuration: HTTPGatewayConfiguration, client: HTTPClient = .shared) {
        self.configuration = configuration
        self.client = client
    }

    /// Posts one message: a text, or an email with its subject.
    public func send(_ message: OutgoingMessage) async throws {
        var request = HTTPClientRequest(url: configuration.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        if let authentication = configuration.authentication {
            let token = try GatewayToken.make(authentication, issuedAt: Date(), lifetime: configuration.tokenLifetime)
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
        }
        let payload = Payload(
            recipient: message.recipient, subject: message.channel == .email ? message.subject ?? "" : nil,
            body: message.body, html: message.channel == .email ? message.html : nil, sender: configuration.sender)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        request.body = .bytes(ByteBuffer(bytes: try encoder.encode(payload)))

        let response = try await HTTPDelivery.execute(
            request, client: client, timeout: configuration.timeout, provider: Self.name(of: message.channel)
        )
        guard (200..<300).contains(response.status) else {
            throw Self.error(status: response.status, body: response.body, channel: message.channel)
        }
    }

    /// Auth0's gateway contract: `sender` (and, for texts, `subject`) is left out rather than
    /// sent as null.
    private struct Payload: Encodable {
        var recipient: String
        var subject: String?
        var body: String
        /// Email only: the HTML alternative of `body`.
        var html: String?
        var sender: String?
    }

    static func name(of channel: OutgoingMessage.Channel) -> String {
        channel == .email ? "email gateway" : "SMS gateway"
    }

    /// The gateway's own message when it gave one, else the HTTP status.
    static func error(status: Int, body: Data, channel: OutgoingMessage.Channel = .sms) -> DeliveryError {
        let json = HTTPDelivery.jsonObject(body)
        let message = ["message", "error_description", "error"].lazy.compactMap { json?[$0] as? String }.first
        let code = HTTPDelivery.text(json?["code"]) ?? "\(status)"
        return DeliveryError(
            message: message ?? "\(name(of: channel)) answered HTTP \(status)", providerCode: code,
            permanent: HTTPDelivery.isPermanent(status: status))
    }
}
