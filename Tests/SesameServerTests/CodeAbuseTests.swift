import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

/// Attacks on one-time codes and magic links: redeeming them elsewhere, guessing them over
/// many codes, and learning internals from delivery failures.
@Suite("Attacks: codes across applications, cumulative guessing, provider errors")
struct CodeAbuseTests {
    /// Attack: app B (low trust, or the attacker's) redeems a code that app A asked for, e.g.
    /// after sending its own "Sign in to Trusted App" mail. The code works only for A.
    @Test("cross-application redemption: a code requested by app A is refused to app B")
    func codeBoundToApplication() async throws {
        try await Harness.run { h in
            let other = try await h.seedApplication(name: "Other App")
            #expect(try await h.start(email: "ana@example.com").status == .ok)
            let code = try #require(h.code(for: "ana@example.com"))
            let stolen = try await h.post(
                "/oauth/token",
                [
                    "grant_type": GrantType.passwordlessOTP, "client_id": other, "realm": "email", "username": "ana@example.com",
                    "otp": code, "scope": "openid",
                ])
            #expect(stolen.status == .forbidden && stolen.error?.errorDescription == "Wrong email or verification code.")
            #expect(try await h.otp("ana@example.com", code).status == .ok, "the asking application still can")
        }
    }

    /// Attack: the same with a magic link: the link of app A confirmed for app B's callback.
    @Test("cross-application redemption: a magic link of app A is refused to app B")
    func magicLinkBoundToApplication() async throws {
        try await Harness.run { h in
            let callback = "https://other.example.com/cb"
            let other = try await h.seedApplication(name: "Other App", callback: callback)
            _ = try await h.sesame.storage.updateApplication(clientID: h.clientID) { $0.callbacks = ["https://a.example.com/cb"] }
            let started = try await h.post(
                "/passwordless/start",
                [
                    "client_id": h.clientID, "connection": "email", "email": "ana@example.com", "send": "link",
                    "authParams": ["redirect_uri": "https://a.example.com/cb", "scope": "openid"],
                ])
            #expect(started.status == .ok)
            let link = try #require(h.sender.sent(to: "ana@example.com").last?.link)
            var fields = Dictionary(
                uniqueKeysWithValues: (URLComponents(string: link)?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            fields["client_id"] = other
            fields["redirect_uri"] = callback
            fields["csrf_token"] = AuthorizeTests.hiddenFields(try await h.get(link).text)["csrf_token"]
            let redirect = try await h.form("/passwordless/verify_redirect", fields)
            let location = try #require(redirect.headers[.location])
            #expect(location.hasPrefix(callback) && location.contains("error=access_denied") && !location.contains("code="))
        }
    }

    /// Attack: cumulative guessing. Three tries per code and a new code every few minutes
    /// would allow about 1,400 guesses a day per address; the recipient's failure budget
    /// (10 an hour) stops guessing across codes, even with a fresh, correct code.
    @Test("cumulative guessing: past the recipient's failure budget every attempt is refused until the window ends")
    func failureBudget() async throws {
        try await Harness.run { h in
            for round in 0..<4 {
                #expect(try await h.start(email: "ana@example.com", from: "203.0.113.\(round)").status == .ok)
                for _ in 0..<3 where round * 3 < 10 {
                    _ = try await h.otp("ana@example.com", "000000")
                }
            }
            let code = try #require(h.code(for: "ana@example.com"))
            let refused = try await h.otp("ana@example.com", code)
            #expect(refused.status == .tooManyRequests && refused.error?.error == "too_many_attempts")
            let audit = try await h.sesame.storage.recentAuditEvents(limit: 50)
            #expect(audit.contains { $0.type == "otp_failure_budget_exhausted" })
            h.clock.advance(by: 3600)
            #expect(try await h.start(email: "ana@example.com").status == .ok)
            let fresh = try #require(h.code(for: "ana@example.com"))
            #expect(try await h.otp("ana@example.com", fresh).status == .ok, "the next hour's budget allows a login")
        }
    }

    /// Attack: a short code is easy to guess within the budgets; fewer than 6 digits is refused.
    @Test("short codes: code_length below 6 is refused, and a stored 4-digit policy still sends 6")
    func shortCodes() async throws {
        #expect(Connection(name: "email", strategy: .email, codeLength: 4).problems().isEmpty == false)
        try await Harness.run { h in
            var email = try #require(try await h.sesame.storage.connection(name: "email"))
            email.codeLength = 4
            try await h.sesame.storage.saveConnection(email)
            _ = try await h.start(email: "ana@example.com")
            #expect(h.code(for: "ana@example.com")?.count == 6)
        }
    }

    /// Attack (reconnaissance): a failing provider's message names internal hosts and ports;
    /// callers never see it (the start answers before any send), operators find it in the
    /// deliveries list.
    @Test("provider errors: callers never see the provider's message")
    func providerErrorsAreGeneric() async throws {
        try await Harness.run { h in
            h.sender.fail(with: DeliveryError(message: "SMTP server 10.0.0.5:2525 unreachable"))
            let response = try await h.start(email: "ana@example.com")
            #expect(response.status == .ok)
            #expect(response.text.contains("10.0.0.5") == false && response.text.contains("2525") == false)
            let delivery = try #require(try await h.sesame.deliveries.list(recipient: "ana@example.com").first)
            #expect(delivery.status == .pending && delivery.lastError == "SMTP server 10.0.0.5:2525 unreachable")
        }
    }
}
