import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import Testing

/// Attacks on `/passwordless/verify`, the check that does not consume a code.
@Suite("Attacks: /passwordless/verify as a code oracle")
struct PasswordlessVerifyTests {
    /// Attack: check a code that another application asked for (app A's "Sign in to Trusted
    /// App" mail) by leaving `client_id` out, which skipped the binding to the application and
    /// gave the attempt back: an oracle on any application's codes that never spends a guess.
    @Test("/passwordless/verify without client_id is refused, and another application's code keeps its attempt spent")
    func verifyNeedsClient() async throws {
        try await Harness.run { h in
            let other = try await h.seedApplication(name: "Other App")
            #expect(try await h.start(email: "ana@example.com").status == .ok)
            let code = try #require(h.code(for: "ana@example.com"))
            var body: [String: Any?] = ["connection": "email", "email": "ana@example.com", "verification_code": code]
            let anonymous = try await h.post("/passwordless/verify", body)
            #expect(
                anonymous.status == .badRequest
                    && anonymous.error
                        == ErrorBody(error: "invalid_request", errorDescription: "Missing required parameter: client_id"),
                "\(anonymous.text)")
            body["client_id"] = other
            for _ in 0..<3 {
                let foreign = try await h.post("/passwordless/verify", body)
                #expect(foreign.status == .unauthorized && foreign.error?.error == "invalid_user_password")
            }
            #expect(
                try await h.otp("ana@example.com", code).status == .forbidden,
                "each foreign check spent an attempt, as a grant by the other application would")
        }
    }
}
