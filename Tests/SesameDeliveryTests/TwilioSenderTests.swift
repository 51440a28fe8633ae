import AsyncHTTPClient
import Foundation
import SesameCore
import Testing

@testable import SesameDelivery

/// Runs Tests/e2e/twilio_mock.py (Twilio's Messages API and an SMS gateway) for one test.
struct TwilioMock {
    static let accountSID = "AC" + String(repeating: "a1", count: 16)
    static let authToken = "test-auth-token-\(UUID().uuidString)"

    var port: Int
    var requests: URL
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request the mock has recorded so far.
    func recorded() throws -> [[String: Any]] { try TestServers.readJSONLines(requests) }

    @discardableResult
    static func run<Result>(_ body: (TwilioMock) async throws -> Result) async throws -> Result {
        let directory = try TestServers.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let requests = directory.appendingPathComponent("requests.jsonl")
        let arguments = ["--log", requests.path, "--account-sid", accountSID, "--auth-token", authToken]
        return try await TestServers.withPythonServer("twilio_mock.py", arguments: arguments, logDirectory: directory) {
            try await body(TwilioMock(port: $0, requests: requests))
        }
    }
}

@Suite("Twilio against a local Messages API", .serialized)
struct TwilioSenderTests {
    private func sender(
        _ mock: TwilioMock, sender: TwilioConfiguration.Sender = .phoneNumber("+15005550006"),
        token: String = TwilioMock.authToken
    ) -> TwilioSender {
        // Generous: in CI every suite shares two cores, and a send that works takes milliseconds.
        TwilioSender(
            configuration: TwilioConfiguration(
                accountSID: TwilioMock.accountSID, authToken: token, sender: sender, baseURL: mock.baseURL, timeout: .seconds(60))
        )
    }

    private func sms(to recipient: String, body: String = "Your code is 482915") -> OutgoingMessage {
        OutgoingMessage(channel: .sms, recipient: recipient, subject: nil, body: body, code: "482915", link: nil)
    }

    @Test("an SMS is posted as Twilio's form with Basic auth, and the sid comes back")
    func sendFromNumber() async throws {
        try await TwilioMock.run { mock in
            let body = "Code 482915 & more: 100% = ok + ✓"
            let sid = try await sender(mock).sendSMS(to: "+14155550123", body: body)
            #expect(sid.hasPrefix("SM") && sid.count == 34)
            let request = try #require(try mock.recorded().first)
            #expect(request["path"] as? String == "/2010-04-01/Accounts/\(TwilioMock.accountSID)/Messages.json")
            #expect(request["status"] as? Int == 201)
            #expect(request["content_type"] as? String == "application/x-www-form-urlencoded")
            let credentials = Data("\(TwilioMock.accountSID):\(TwilioMock.authToken)".utf8).base64EncodedString()
            #expect(request["authorization"] as? String == "Basic \(credentials)")
            #expect(request["form"] as? [String: String] == ["To": "+14155550123", "Body": body, "From": "+15005550006"])
        }
    }

    @Test("a Messaging Service sends MessagingServiceSid instead of From")
    func sendFromService() async throws {
        try await TwilioMock.run { mock in
            let service = "MG" + String(repeating: "0f", count: 16)
            try await sender(mock, sender: .messagingService(sid: service)).send(sms(to: "+447700900123"))
            let form = try #require(try mock.recorded().first?["form"] as? [String: String])
            #expect(form == ["To": "+447700900123", "Body": "Your code is 482915", "MessagingServiceSid": service])
        }
    }

    @Test("Twilio's error document becomes a DeliveryError with its code")
    func invalidNumber() async throws {
        try await TwilioMock.run { mock in
            await #expect(
                throws: DeliveryError(
                    message: "The 'To' number +1555 is not a valid phone number.", providerCode: "21211", permanent: true)
            ) {
                try await sender(mock).send(sms(to: "+1555"))
            }
        }
    }

    @Test("a wrong auth token is refused with 20003")
    func wrongToken() async throws {
        try await TwilioMock.run { mock in
            await #expect(throws: DeliveryError(message: "Authenticate", providerCode: "20003", permanent: true)) {
                try await sender(mock, token: "wrong").send(sms(to: "+14155550123"))
            }
        }
    }

    @Test("a caller-owned HTTPClient works and is shut down by its owner")
    func ownClient() async throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await TwilioMock.run { mock in
                let sender = TwilioSender(
                    configuration: TwilioConfiguration(
                        accountSID: TwilioMock.accountSID, authToken: TwilioMock.authToken,
                        sender: .phoneNumber("+15005550006"), baseURL: mock.baseURL + "/"), client: client)
                try await sender.send(sms(to: "+14155550123"))
                #expect(try mock.recorded().count == 1)
            }
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    @Test("nothing listening: a DeliveryError, not a transport error")
    func unreachable() async throws {
        try await TestServers.withRefusingPort { port in
            let sender = TwilioSender(
                configuration: TwilioConfiguration(
                    accountSID: TwilioMock.accountSID, authToken: "x", sender: .phoneNumber("+15005550006"),
                    baseURL: "http://127.0.0.1:\(port)", timeout: .seconds(5)))
            // AsyncHTTPClient keeps retrying a refused connection until the deadline; which of the
            // two it reports depends on the machine's load, and both are the same to the caller.
            await #expect {
                try await sender.send(sms(to: "+14155550123"))
            } throws: { error in
                ["Twilio unreachable", "Twilio did not answer in time"].contains((error as? DeliveryError)?.message)
            }
        }
    }

    @Test("email is refused")
    func wrongChannel() async {
        let sender = TwilioSender(
            configuration: TwilioConfiguration(accountSID: "AC", authToken: "x", sender: .phoneNumber("+1")))
        let email = OutgoingMessage(channel: .email, recipient: "a@b.c", subject: "s", body: "b", code: nil, link: nil)
        await #expect(throws: DeliveryError.self) { try await sender.send(email) }
    }

    @Test("form encoding escapes + so E.164 numbers survive")
    func formEncoding() {
        #expect(FormEncoding.encode([("To", "+1 555"), ("Body", "a&b=c/é~")]) == "To=%2B1%20555&Body=a%26b%3Dc%2F%C3%A9~")
    }

    @Test("a non-JSON error page still becomes a DeliveryError")
    func htmlError() {
        #expect(TwilioSender.error(status: 503, json: nil) == DeliveryError(message: "Twilio answered HTTP 503"))
    }
}
