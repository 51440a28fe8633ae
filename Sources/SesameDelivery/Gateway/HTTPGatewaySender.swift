public import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
public import SesameCore

/// Sends text messages through a custom HTTP gateway, the way Auth0's legacy
/// "SMS gateway" option does: `POST {"recipient", "body", "sender"}` as JSON, with an
/// optional `Authorization: Bearer` HS256 token.
///
/// Any 2xx answer means sent. Otherwise the error's text is the body's `message`
/// (or `error_description`/`error`) when the gateway sent JSON.
public struct HTTPGatewaySender: MessageSender {
    /// The gateway and its authentication.
    public let configuration: HTTPGatewayConfiguration
    private let client: HTTPClient

    /// Creates a sender that uses `client`; the caller keeps it running and shuts it down.
    public init(configuration: HTTPGatewayConfiguration, client: HTTPClient) {
        self.configuration = configuration
        self.client = client
    }

    /// Creates a sender on AsyncHTTPClient's process-wide shared client.
    public init(configuration: HTTPGatewayConfiguration) {
        self.init(configuration: configuration, client: .shared)
    }

    /// Posts one text. Only `.sms` messages are accepted.
    public func send(_ message: OutgoingMessage) async throws {
        guard message.channel == .sms else {
            throw DeliveryError(message: "The SMS gateway can only send SMS, not \(message.channel.rawValue)")
        }
        var request = HTTPClientRequest(url: configuration.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        if let authentication = configuration.authentication {
            let token = try GatewayToken.make(authentication, issuedAt: Date(), lifetime: configuration.tokenLifetime)
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
        }
        let payload = Payload(recipient: message.recipient, body: message.body, sender: configuration.sender)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        request.body = .bytes(ByteBuffer(bytes: try encoder.encode(payload)))

        let response = try await HTTPDelivery.execute(
            request, client: client, timeout: configuration.timeout, provider: "SMS gateway"
        )
        guard (200..<300).contains(response.status) else {
            throw Self.error(status: response.status, body: response.body)
        }
    }

    /// Auth0's gateway contract: `sender` is left out rather than sent as null.
    private struct Payload: Encodable {
        var recipient: String
        var body: String
        var sender: String?
    }

    /// The gateway's own message when it gave one, else the HTTP status.
    static func error(status: Int, body: Data) -> DeliveryError {
        let json = HTTPDelivery.jsonObject(body)
        let message = ["message", "error_description", "error"].lazy.compactMap { json?[$0] as? String }.first
        let code = HTTPDelivery.text(json?["code"]) ?? "\(status)"
        return DeliveryError(message: message ?? "SMS gateway answered HTTP \(status)", providerCode: code)
    }
}
