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

    /// Attack: lockout by a stranger. Anyone can start a code for the victim's address and guess
    /// wrong three times, four times over (14 requests); with one budget per address, the
    /// victim's own right code and magic-link confirmation then got 429 for up to an hour, and
    /// about 40 requests a day kept them out. The budget is per source now, under a much
    /// higher ceiling for the address, and the victim is told by email, once a day.
    @Test("lockout by a stranger: wrong codes from one address do not lock the victim out of codes or links")
    func lockoutByStranger() async throws {
        let attacker: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "203.0.113.66"]
        let victim: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "198.51.100.20"]
        // The victim's own browser confirms the link from the harness's default address.
        @Sendable func guess(_ h: Harness, _ code: String, from headers: HTTPFields) async throws -> TestResponse {
            try await h.post(
                "/oauth/token",
                [
                    "grant_type": GrantType.passwordlessOTP, "client_id": h.clientID, "realm": "email",
                    "username": "ana@example.com", "otp": code, "scope": "openid",
                ], headers: headers)
        }
        try await Harness.run { h in
            for _ in 0..<4 {
                #expect(try await h.start(email: "ana@example.com", from: "203.0.113.66").status == .ok)
                for _ in 0..<3 { _ = try await guess(h, "000000", from: attacker) }
            }
            let stopped = try await guess(h, "000000", from: attacker)
            #expect(stopped.status == .tooManyRequests && stopped.error?.error == "too_many_attempts", "guesses stay bounded")
            #expect(try await h.start(email: "ana@example.com", from: "198.51.100.20").status == .ok)
            let code = try #require(h.code(for: "ana@example.com"))
            #expect(try await guess(h, code, from: victim).status == .ok, "the victim's own code works")
            h.clock.advance(by: 900)  // the address's start limit (5 per 15 minutes), not the budget
            let link = try await MagicLinkTests().sendLink(h)
            let confirmed = try await MagicLinkTests().confirm(h, link)
            #expect(confirmed.status == .seeOther, "the victim's magic link works")
            #expect(confirmed.headers[.location]?.contains("code=") == true)
            // The person is told, once a day however long the attack lasts, and it is audited.
            for _ in 0..<3 { _ = try await guess(h, "000000", from: attacker) }
            let notices = h.sender.sent(to: "ana@example.com").filter { $0.code == nil && $0.link == nil }
            #expect(notices.count == 1)
            #expect(notices.first?.subject?.contains("trying to sign in") == true)
            let audit = try await h.sesame.storage.recentAuditEvents(limit: 100)
            #expect(audit.filter { $0.type == "address_under_attack" }.count == 1)
        }
    }

    /// Attack: the same lockout from many addresses (a botnet). Each source has its own budget,
    /// so the address's ceiling across all of them is what bounds guessing.
    @Test("guessing from many addresses: the address's ceiling across all sources still bounds guesses")
    func guessingFromManyAddresses() async throws {
        try await Harness.run(configure: {
            $0.failureCeiling = [RateLimitRule(limit: 12, windowSeconds: 3600)]
            $0.startLimitPerRecipient = RateLimitRule(limit: 100, windowSeconds: 900)
        }) { h in
            var refused = 0
            for source in 0..<8 {
                #expect(try await h.start(email: "ana@example.com", from: "203.0.113.\(source)").status == .ok)
                for _ in 0..<3 {
                    let response = try await h.post(
                        "/oauth/token",
                        [
                            "grant_type": GrantType.passwordlessOTP, "client_id": h.clientID, "realm": "email",
                            "username": "ana@example.com", "otp": "000000",
                        ], headers: [HTTPField.Name("X-Forwarded-For")!: "203.0.113.\(source)"])
                    if response.status == .tooManyRequests { refused += 1 }
                }
            }
            #expect(refused == 24 - 12, "12 wrong codes in all, then every source is refused")
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
