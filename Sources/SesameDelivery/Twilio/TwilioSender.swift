public import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
public import SesameCore

/// Sends text messages through Twilio's Messages API.
///
/// `POST {baseURL}/2010-04-01/Accounts/{AccountSid}/Messages.json` with `To`, `Body` and
/// `From` or `MessagingServiceSid`, authenticated with HTTP Basic `AccountSid:AuthToken`.
/// Twilio's error document `{code, message, more_info, status}` becomes
/// `DeliveryError(message: message, providerCode: "\(code)")`.
public struct TwilioSender: MessageSender {
    /// The account, sender and API location.
    public let configuration: TwilioConfiguration
    private let client: HTTPClient

    /// Creates a sender that uses `client` (AsyncHTTPClient's process-wide shared client unless
    /// given); the caller keeps a client it passes running and shuts it down.
    public init(configuration: TwilioConfiguration, client: HTTPClient = .shared) {
        self.configuration = configuration
        self.client = client
    }

    /// Sends one text. Only `.sms` messages are accepted.
    public func send(_ message: OutgoingMessage) async throws {
        guard message.channel == .sms else {
            throw DeliveryError(message: "Twilio can only send SMS, not \(message.channel.rawValue)")
        }
        _ = try await sendSMS(to: message.recipient, body: message.body)
    }

    /// Sends one text and returns the message resource's `sid` (`SM…`), which support
    /// staff can look up in Twilio's console.
    @discardableResult
    public func sendSMS(to recipient: String, body: String) async throws -> String {
        var fields = [("To", recipient), ("Body", body)]
        switch configuration.sender {
        case .phoneNumber(let number): fields.append(("From", number))
        case .messagingService(let sid): fields.append(("MessagingServiceSid", sid))
        }
        var request = HTTPClientRequest(url: configuration.messagesURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(
            name: "Authorization",
            value: FormEncoding.basicAuthorization(user: configuration.accountSID, password: configuration.authToken)
        )
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))

        let response = try await HTTPDelivery.execute(
            request, client: client, timeout: configuration.timeout, provider: "Twilio"
        )
        let json = HTTPDelivery.jsonObject(response.body)
        guard (200..<300).contains(response.status) else {
            throw Self.error(status: response.status, json: json)
        }
        return HTTPDelivery.text(json?["sid"]) ?? ""
    }

    /// Twilio's error document, or a generic error when the body is not one (a proxy's HTML page).
    static func error(status: Int, json: [String: Any]?) -> DeliveryError {
        guard let json, let message = json["message"] as? String else {
            return DeliveryError(
                message: "Twilio answered HTTP \(status)", providerCode: nil, permanent: HTTPDelivery.isPermanent(status: status))
        }
        // A 4xx such as 21211 (invalid number) or 20003 (bad credentials) fails the same way again.
        return DeliveryError(
            message: message, providerCode: HTTPDelivery.text(json["code"]), permanent: HTTPDelivery.isPermanent(status: status))
    }
}
