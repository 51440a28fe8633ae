import Crypto
import Foundation
import SesameCore
import Testing

@testable import SesameDelivery

@Suite("HTTP SMS gateway", .serialized)
struct HTTPGatewaySenderTests {
    private let sms = OutgoingMessage(
        channel: .sms, recipient: "+14155550123", subject: nil,
        body: "Your code is 482915", code: "482915", link: nil)

    private func base64URLDecode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// Checks the HS256 signature with `key` and returns the claims.
    private func verify(_ token: String, key: Data) throws -> [String: Any] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let header = try #require(base64URLDecode(parts[0]))
        #expect(try JSONSerialization.jsonObject(with: header) as? [String: String] == ["alg": "HS256", "typ": "JWT"])
        let signature = try #require(base64URLDecode(parts[2]))
        let valid = HMAC<SHA256>.isValidAuthenticationCode(
            signature, authenticating: Data("\(parts[0]).\(parts[1])".utf8), using: SymmetricKey(data: key))
        #expect(valid, "signature does not verify")
        let payload = try #require(base64URLDecode(parts[1]))
        return try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
    }

    /// A sender for the mock's gateway path that signs its token with `secret`.
    static func signed(_ mock: TwilioMock, audience: String, secret: String, sender: String) -> HTTPGatewaySender {
        let authentication = HTTPGatewayConfiguration.Authentication(subject: "sesame", audience: audience, secret: secret)
        return HTTPGatewaySender(
            configuration: HTTPGatewayConfiguration(
                url: "\(mock.baseURL)/gateway", sender: sender, authentication: authentication))
    }

    @Test("posts recipient, body and sender as JSON with a signed bearer token")
    func signedRequest() async throws {
        try await TwilioMock.run { mock in
            try await Self.signed(mock, audience: "https://gateway.test", secret: "gateway-secret", sender: "Sesame")
                .send(sms)
            let request = try #require(try mock.recorded().first)
            #expect(
                request["json"] as? [String: String] == [
                    "recipient": "+14155550123", "body": "Your code is 482915", "sender": "Sesame",
                ])
            let authorization = try #require(request["authorization"] as? String)
            try #require(authorization.hasPrefix("Bearer "))
            let claims = try verify(String(authorization.dropFirst(7)), key: Data("gateway-secret".utf8))
            #expect(claims["sub"] as? String == "sesame")
            #expect(claims["aud"] as? String == "https://gateway.test")
            let iat = try #require(claims["iat"] as? Int)
            #expect(claims["exp"] as? Int == iat + 300)
        }
    }

    @Test("email through the gateway: recipient, subject, body and sender, with the signed token")
    func email() async throws {
        try await TwilioMock.run { mock in
            let sender = Self.signed(
                mock, audience: "https://mail.test", secret: "mail-secret", sender: "Example <no-reply@example.com>")
            let message = OutgoingMessage(
                channel: .email, recipient: "ana@example.com", subject: "Your code", body: "Your code is 482915",
                code: "482915", link: nil)
            try await sender.send(message)
            let request = try #require(try mock.recorded().first)
            #expect(
                request["json"] as? [String: String] == [
                    "recipient": "ana@example.com", "subject": "Your code", "body": "Your code is 482915",
                    "sender": "Example <no-reply@example.com>",
                ])
            let authorization = try #require(request["authorization"] as? String)
            let claims = try verify(String(authorization.dropFirst(7)), key: Data("mail-secret".utf8))
            #expect(claims["aud"] as? String == "https://mail.test")
        }
    }

    @Test("without authentication: no Authorization header, no sender field")
    func unsigned() async throws {
        try await TwilioMock.run { mock in
            try await HTTPGatewaySender(configuration: HTTPGatewayConfiguration(url: "\(mock.baseURL)/gateway")).send(sms)
            let request = try #require(try mock.recorded().first)
            #expect(request["authorization"] is NSNull)
            #expect(request["json"] as? [String: String] == ["recipient": "+14155550123", "body": "Your code is 482915"])
        }
    }

    @Test("a refusal carries the gateway's message and code")
    func refusal() async throws {
        try await TwilioMock.run { mock in
            let sender = HTTPGatewaySender(configuration: HTTPGatewayConfiguration(url: "\(mock.baseURL)/gateway/fail"))
            await #expect(throws: DeliveryError(message: "Carrier rejected the message", providerCode: "carrier_rejected")) {
                try await sender.send(sms)
            }
        }
    }

    @Test("a base64url secret is decoded before signing")
    func base64URLSecret() throws {
        let key = Data((0..<32).map { UInt8($0 * 7 % 256) })
        let encoded = GatewayToken.base64URL(key)
        let authentication = HTTPGatewayConfiguration.Authentication(
            subject: "s", audience: "a", secret: encoded, secretIsBase64URLEncoded: true)
        #expect(try GatewayToken.secretBytes(authentication) == key)
        let token = try GatewayToken.make(authentication, issuedAt: Date(timeIntervalSince1970: 1_000), lifetime: .seconds(300))
        let claims = try verify(token, key: key)
        #expect(claims["iat"] as? Int == 1_000)
        #expect(claims["exp"] as? Int == 1_300)
    }

    @Test("error bodies without a message fall back to the HTTP status")
    func errorFallback() {
        #expect(
            HTTPGatewaySender.error(status: 500, body: Data("oops".utf8))
                == DeliveryError(message: "SMS gateway answered HTTP 500", providerCode: "500"))
        #expect(
            HTTPGatewaySender.error(status: 400, body: Data(#"{"error":"bad number"}"#.utf8))
                == DeliveryError(message: "bad number", providerCode: "400", permanent: true))
    }
}
