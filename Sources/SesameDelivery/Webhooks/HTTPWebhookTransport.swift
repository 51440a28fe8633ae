public import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
public import SesameCore

/// Posts webhook calls over HTTP with AsyncHTTPClient.
///
/// Any 2xx answer is success. `410 Gone` says the receiver will never take the call, so it
/// is permanent; every other answer and every connection problem is transient, as Standard
/// Webhooks receivers expect to be retried (a deploy, a crash, a full queue).
public struct HTTPWebhookTransport: WebhookTransport {
    private let client: HTTPClient
    /// How long one call may take, connecting included.
    public var timeout: Duration

    /// Creates a transport on `client` (the process-wide shared one unless given).
    public init(client: HTTPClient = .shared, timeout: Duration = .seconds(15)) {
        self.client = client
        self.timeout = timeout
    }

    public func post(url: String, headers: [(name: String, value: String)], body: Data) async throws {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Sesame-Webhooks/1")
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPDelivery.execute(request, client: client, timeout: timeout, provider: "webhook endpoint")
        guard (200..<300).contains(response.status) else {
            throw DeliveryError(
                message: "webhook endpoint answered HTTP \(response.status)", providerCode: "\(response.status)",
                permanent: response.status == 410)
        }
    }
}
