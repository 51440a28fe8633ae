import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

@Suite("POST /passwordless/start")
struct PasswordlessStartTests {
    @Test("email code: Auth0's answer, rate-limit headers, a 6-digit code delivered")
    func emailCode() async throws {
        try await Harness.run { h in
            let response = try await h.start(email: "Ana@Example.COM")
            #expect(response.status == .ok)
            let body = try response.decode(PasswordlessStartBody.self)
            #expect(body.email == "ana@example.com" && body.emailVerified == false)
            #expect(response.header("X-RateLimit-Limit") == "1000")
            #expect(response.header("X-RateLimit-Remaining") == "999")
            #expect(Int64(response.header("X-RateLimit-Reset") ?? "") ?? 0 > h.clock.now().epochSeconds)
            let code = try #require(h.code(for: "ana@example.com"))
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        }
    }

    @Test("sms: code by default, E.164 only")
    func sms() async throws {
        try await Harness.run { h in
            let response = try await h.start(phone: "+15551234567")
            #expect(response.status == .ok)
            let body = try response.decode(PasswordlessStartBody.self)
            #expect(body.phoneNumber == "+15551234567" && body.phoneVerified == false)
            #expect(h.code(for: "+15551234567")?.count == 6)
        }
    }

    @Test("email without send gets a magic link (Auth0's default)")
    func defaultIsLink() async throws {
        try await Harness.run { h in
            _ = try await h.start(email: "ana@example.com", send: nil)
            let message = try #require(h.sender.sent(to: "ana@example.com").last)
            #expect(message.code == nil)
            #expect(message.link?.hasPrefix("https://login.example.com/passwordless/verify_redirect?") == true)
        }
    }

    /// Attack: account enumeration. The answer for an existing user, an unknown address and a
    /// blocked user must be indistinguishable; only delivery differs for the blocked one.
    @Test("identical answers for known, unknown and blocked users")
    func identicalAnswers() async throws {
        try await Harness.run { h in
            _ = try await h.login(email: "known@example.com")
            let blocked = try await h.login(email: "blocked@example.com")
            _ = blocked
            let user = try #require(try await h.sesame.storage.user(connection: "email", identifier: "blocked@example.com"))
            _ = try await h.sesame.storage.updateUser(id: user.id) { $0.blocked = true }
            let sentBefore = h.sender.sent(to: "blocked@example.com").count
            var shapes: [String] = []
            for email in ["known@example.com", "unknown@example.com", "blocked@example.com"] {
                let response = try await h.start(email: email)
                #expect(response.status == .ok)
                let body = try response.decode(PasswordlessStartBody.self)
                shapes.append("\(body.emailVerified ?? true) \(body.id.count) \(response.text.count - email.count)")
            }
            #expect(Set(shapes).count == 1, "answers differ: \(shapes)")
            #expect(h.sender.sent(to: "blocked@example.com").count == sentBefore, "no code is sent to a blocked user")
        }
    }

    @Test(
        "documented errors",
        arguments: [
            (["connection": "email", "email": "a@b.co"], 400, "bad.client_id", "Missing required property: client_id"),
            (["client_id": "nope", "connection": "email", "email": "a@b.co"], 401, "invalid_client", "Unknown client."),
            (["client_id": "$", "email": "a@b.co"], 400, "bad.connection", "Missing required property: connection"),
            (["client_id": "$", "connection": "github", "email": "a@b.co"], 400, "bad.connection", "Connection does not exist"),
            (["client_id": "$", "connection": "email"], 400, "bad.email", "Missing required property: email"),
            (
                ["client_id": "$", "connection": "email", "email": "not-an-email"], 400, "bad.email",
                "Invalid email address: must look like name@example.com"
            ),
            (["client_id": "$", "connection": "sms"], 400, "bad.phone_number", "Missing required property: phone_number"),
            (
                ["client_id": "$", "connection": "sms", "phone_number": "555-1234"], 400, "bad.phone_number",
                "String does not match pattern: ^\\+[0-9]{1,15}$"
            ),
            (
                ["client_id": "$", "connection": "email", "email": "a@b.co", "send": "carrier-pigeon"], 400, "bad.request",
                "send must be one of: code, link, link_ios, link_android"
            ),
            (
                ["client_id": "$", "connection": "sms", "phone_number": "+15551234567", "send": "link"], 400, "bad.request",
                "send=link is not supported for sms: use code, link_ios or link_android"
            ),
            (
                ["client_id": "$", "connection": "email", "email": "a@b.co", "authParams": "scope=openid"], 400, "bad.authParams",
                "error in authParams - invalid type: string (expected object)"
            ),
            (
                ["client_id": "$", "connection": "email", "email": "a@b.co", "send": "link_ios"], 400, "bad.request",
                "send=link_ios needs the application's iOS bundle id"
            ),
        ] as [([String: String], Int, String, String)])
    func errors(_ body: [String: String], status: Int, code: String, message: String) async throws {
        try await Harness.run { h in
            var body: [String: Any?] = body
            if body["client_id"] as? String == "$" { body["client_id"] = h.clientID }
            let response = try await h.post("/passwordless/start", body)
            #expect(response.status.code == status)
            #expect(response.error == ErrorBody(error: code, errorDescription: message))
            #expect(h.sender.count == 0, "nothing is sent on a refused request")
        }
    }

    @Test("a disabled connection is refused")
    func disabledConnection() async throws {
        try await Harness.run { h in
            var sms = try #require(try await h.sesame.storage.connection(name: "sms"))
            sms.enabled = false
            try await h.sesame.storage.saveConnection(sms)
            let response = try await h.start(phone: "+15551234567")
            #expect(response.error == ErrorBody(error: "bad.connection", errorDescription: "Connection is disabled"))
        }
    }

    /// Attack: SMS pumping and inbox flooding. Each recipient gets at most 5 messages per 15
    /// minutes, whatever IPs the requests come from; the 6th gets 429 with Auth0's headers.
    @Test("per-recipient limit: 5 per 15 minutes, counted in the database")
    func recipientLimit() async throws {
        try await Harness.run { h in
            for index in 1...5 {
                #expect(try await h.start(email: "ana@example.com", from: "203.0.113.\(index)").status == .ok)
            }
            let refused = try await h.start(email: "ana@example.com", from: "203.0.113.99")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.error?.error == "too_many_requests")
            #expect(refused.header("X-RateLimit-Limit") == "5" && refused.header("X-RateLimit-Remaining") == "0")
            #expect(refused.header("X-RateLimit-Reset") != nil)
            #expect(h.sender.sent(to: "ana@example.com").count == 5)
            h.clock.advance(by: 901)
            #expect(try await h.start(email: "ana@example.com").status == .ok, "a new window allows sending again")
        }
    }

    /// Attack: one client hammering start for many addresses. The per-IP limit holds.
    @Test("per-IP limit")
    func ipLimit() async throws {
        try await Harness.run(configure: { $0.startLimitPerIP = RateLimitRule(limit: 3, windowSeconds: 3600) }) { h in
            for index in 1...3 { #expect(try await h.start(email: "u\(index)@example.com").status == .ok) }
            let refused = try await h.start(email: "u4@example.com")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.header("X-RateLimit-Limit") == "3")
            #expect(try await h.start(email: "u5@example.com", from: "192.0.2.1").status == .ok, "other IPs are unaffected")
        }
    }
}
