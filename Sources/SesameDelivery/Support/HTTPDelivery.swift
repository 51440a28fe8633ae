import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SesameCore

/// What the HTTP senders share: running one request within a deadline and reading the body.
enum HTTPDelivery {
    /// Largest response body read; provider answers are small JSON documents.
    static let maximumBodySize = 1 << 20

    /// Status and body of a finished request.
    struct Response: Sendable {
        var status: Int
        var body: Data
    }

    /// Sends `request` and collects the whole answer. Connection problems and timeouts
    /// become ``DeliveryError`` named after `provider`.
    static func execute(
        _ request: HTTPClientRequest,
        client: HTTPClient,
        timeout: Duration,
        provider: String
    ) async throws -> Response {
        do {
            // AsyncHTTPClient enforces the deadline and reports why it ran out (a refused
            // connection it kept retrying, say); the outer timeout only guards the body stream.
            let guardTime = timeout + .seconds(2)
            return try await withDeadline(
                guardTime, timeoutError: { DeliveryError(message: "\(provider) did not answer in time") }
            ) {
                let response = try await client.execute(request, timeout: timeout.timeAmount)
                let body = try await response.body.collect(upTo: maximumBodySize)
                return Response(status: Int(response.status.code), body: Data(body.readableBytesView))
            }
        } catch let error as DeliveryError {
            throw error
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw DeliveryError(message: "\(provider) did not answer in time")
        } catch {
            throw DeliveryError(message: "\(provider) unreachable")
        }
    }

    /// Whether an HTTP refusal is final: a 4xx says the request itself is wrong (a bad number,
    /// bad credentials), except timeouts and rate limits (408, 425, 429), which pass.
    /// 5xx and connection failures are transient.
    static func isPermanent(status: Int) -> Bool {
        (400..<500).contains(status) && ![408, 425, 429].contains(status)
    }

    /// The top-level JSON object of `body`, or nil when it is not one.
    static func jsonObject(_ body: Data) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }

    /// A JSON scalar as text: Twilio's `code` is a number, other gateways use strings.
    static func text(_ value: Any?) -> String? {
        switch value {
        case let string as String: string
        case let number as NSNumber: number.stringValue
        default: nil
        }
    }
}
