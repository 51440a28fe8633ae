import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import Testing

@Suite("Legacy endpoints: /oauth/ro and /passwordless/verify")
struct LegacyTests {
    @Test("/oauth/ro signs in with connection, username and password = the code")
    func resourceOwner() async throws {
        try await Harness.run { h in
            _ = try await h.start(phone: "+15551234567")
            let response = try await h.post(
                "/oauth/ro",
                [
                    "client_id": h.clientID, "connection": "sms", "grant_type": "password", "username": "+15551234567",
                    "password": h.code(for: "+15551234567"), "scope": "openid offline_access",
                ])
            let tokens = try response.tokens()
            #expect(tokens.idToken != nil && tokens.refreshToken != nil)
        }
    }

    /// The exact answer Lock v1 saw from Auth0 for a wrong SMS code.
    @Test("/oauth/ro wrong code: 401 invalid_user_password")
    func resourceOwnerWrongCode() async throws {
        try await Harness.run { h in
            let response = try await h.post(
                "/oauth/ro",
                [
                    "client_id": h.clientID, "connection": "sms", "grant_type": "password", "username": "+15551234567",
                    "password": "000000",
                ])
            #expect(response.status == .unauthorized)
            #expect(
                response.error
                    == ErrorBody(error: "invalid_user_password", errorDescription: "Wrong phone number or verification code."))
        }
    }

    @Test("/oauth/ro missing parameters, in Auth0's words", arguments: ["client_id", "username", "password", "connection"])
    func resourceOwnerMissing(_ parameter: String) async throws {
        try await Harness.run { h in
            var body: [String: Any?] = ["client_id": h.clientID, "connection": "email", "username": "a@b.co", "password": "1"]
            body[parameter] = nil
            let response = try await h.post("/oauth/ro", body)
            #expect(response.error == ErrorBody(error: "invalid_request", errorDescription: "missing \(parameter) parameter"))
        }
    }

    @Test("/passwordless/verify checks without consuming")
    func verifyDoesNotConsume() async throws {
        try await Harness.run { h in
            _ = try await h.start(email: "ana@example.com")
            let code = h.code(for: "ana@example.com")
            for _ in 0..<4 {
                let verified = try await h.post(
                    "/passwordless/verify",
                    ["client_id": h.clientID, "connection": "email", "email": "ana@example.com", "verification_code": code])
                #expect(verified.status == .ok)
            }
            #expect(try await h.otp("ana@example.com", code).status == .ok, "still usable after checks")
        }
    }

    /// Attack: using /passwordless/verify as an oracle to guess codes without the attempt cap.
    @Test("/passwordless/verify counts failures against the same cap")
    func verifyCountsFailures() async throws {
        try await Harness.run { h in
            _ = try await h.start(email: "ana@example.com")
            for _ in 0..<3 {
                let wrong = try await h.post(
                    "/passwordless/verify",
                    [
                        "grant_type": "password", "client_id": h.clientID, "connection": "email",
                        "username": "ana@example.com", "password": "not-it",
                    ])
                #expect(wrong.status == .unauthorized && wrong.error?.error == "invalid_user_password")
            }
            #expect(try await h.otp("ana@example.com", h.code(for: "ana@example.com")).status == .forbidden)
        }
    }
}
