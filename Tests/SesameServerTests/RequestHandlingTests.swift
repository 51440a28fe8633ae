import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SesameAPI
import SesameWebAuthnTesting
import Testing

@Suite("Request handling: malformed input never causes a 5xx")
struct RequestHandlingTests {
    @Test(
        "malformed bodies get 400 with Auth0's error shape",
        arguments: [
            ("{not json", "The request body is not valid JSON."),
            ("[1,2,3]", "The request body must be a JSON object."),
            ("\"text\"", "The request body must be a JSON object."),
            ("{\"client_id\": 42}", "client_id must be a string."),
            ("{\"client_id\": {\"a\": 1}}", "client_id must be a string."),
        ])
    func malformed(_ body: String, message: String) async throws {
        try await Harness.run { h in
            let start = try await h.postRaw("/passwordless/start", body)
            #expect(start.error == ErrorBody(error: "invalid_request", errorDescription: message))
            for path in ["/oauth/token", "/oauth/ro", "/oauth/revoke", "/passwordless/verify", "/passwordless/verify_redirect"] {
                let response = try await h.postRaw(path, body)
                #expect(response.status == .badRequest && response.error?.error == "invalid_request", "\(path)")
            }
        }
    }

    @Test("bodies over 64 KB get 413")
    func tooLarge() async throws {
        try await Harness.run { h in
            let body = "{\"email\": \"" + String(repeating: "a", count: 70_000) + "\"}"
            let response = try await h.postRaw("/passwordless/start", body)
            #expect(response.status == .contentTooLarge)
            #expect(response.error?.error == "request_too_large")
        }
    }

    @Test("/passwordless/start accepts JSON only")
    func startIsJSONOnly() async throws {
        try await Harness.run { h in
            let response = try await h.form("/passwordless/start", ["client_id": h.clientID])
            #expect(response.status == .badRequest && response.error?.error == "invalid_request")
        }
    }

    @Test("unknown routes answer 404 in the error shape")
    func notFound() async throws {
        try await Harness.run { h in
            let response = try await h.get("/nope")
            #expect(response.status == .notFound && response.error?.error == "not_found")
        }
    }

    /// A small fuzz pass: random bytes, truncated JSON and odd types at every endpoint must
    /// give a 4xx, never a 5xx.
    @Test("fuzzed bodies never produce a 5xx")
    func fuzz() async throws {
        try await Harness.run { h in
            var generator = SeededGenerator(seed: 42)
            let seeds = [
                "{\"client_id\":\"\(h.clientID)\",\"connection\":\"email\",\"email\":\"a@b.co\",\"send\":\"code\"}",
                "{\"grant_type\":\"http://auth0.com/oauth/grant-type/passwordless/otp\",\"client_id\":\"\(h.clientID)\",\"realm\":\"sms\",\"username\":\"+1555\",\"otp\":\"1\"}",
                "{\"grant_type\":\"refresh_token\",\"client_id\":\"\(h.clientID)\",\"refresh_token\":\"x\"}",
            ]
            for round in 0..<300 {
                var bytes = Array(seeds[round % seeds.count].utf8)
                for _ in 0..<Int.random(in: 1...6, using: &generator) {
                    let index = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                    case 1: bytes.remove(at: index)
                    default: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: index)
                    }
                    if bytes.isEmpty { bytes = [0x7B] }
                }
                for path in ["/passwordless/start", "/oauth/token", "/oauth/ro", "/passwordless/verify"] {
                    let response = try await h.client.execute(
                        uri: path, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(bytes: bytes))
                    #expect(
                        response.status.code < 500,
                        "\(path) answered \(response.status) to \(String(decoding: bytes, as: UTF8.self))")
                }
            }
        }
    }
}
