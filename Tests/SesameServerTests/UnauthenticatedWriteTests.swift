import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

/// Attacks through the endpoints anyone may call: learning which accounts exist, signing up
/// where signup is off, and filling the database.
@Suite("Attacks: passkey signup enumeration, disabled signup, unbounded writes")
struct UnauthenticatedWriteTests {
    /// Attack (enumeration): `/passkey/register` for a known address answered "already exists"
    /// at once. It now answers the same for known and unknown addresses, and so does the
    /// finish (``PasskeyTests``): a taken address gets no account, its holder a notice.
    @Test("enumeration: /passkey/register answers known and unknown addresses alike")
    func registerRevealsNothing() async throws {
        try await Harness.run { h in
            _ = try await h.login(email: "known@example.com")
            let known = try await PasskeyClient(h).signupChallenge(["email": "known@example.com"])
            let unknown = try await PasskeyClient(h).signupChallenge(["email": "unknown@example.com"])
            #expect(known.status == .ok && unknown.status == .ok)
            #expect(Set(try known.json().keys) == Set(try unknown.json().keys))
            let device = PasskeyClient(h)
            let finish = try await device.finish(known, try device.attest(known))
            let body = try finish.json()
            #expect(finish.status == .ok && body["access_token"] != nil, "\(finish.text)")
            #expect(try await h.sesame.storage.listUsers(limit: 10, offset: 0).count == 1, "and makes no account")
        }
    }

    /// Attack: with `disable_signup`, accounts must not be created through the passkey door.
    @Test("disable_signup: passkey signup is refused like code signup")
    func passkeySignupHonoursDisableSignup() async throws {
        try await Harness.run { h in
            var email = try #require(try await h.sesame.storage.connection(name: "email"))
            email.disableSignup = true
            try await h.sesame.storage.saveConnection(email)
            let refused = try await PasskeyClient(h).signupChallenge(["email": "new@example.com"])
            #expect(refused.status == .forbidden && refused.error?.error == "access_denied")
            #expect(try await h.sesame.storage.listUsers(limit: 10, offset: 0).isEmpty)
        }
    }

    /// Attack (storage exhaustion): every `/passkey/register` and `/passkey/challenge` call
    /// stores a session; one client is limited per IP.
    @Test("unbounded writes: passkey challenges and signups are rate-limited per IP")
    func passkeyCeremoniesRateLimited() async throws {
        try await Harness.run(configure: {
            $0.passkeyChallengeLimitPerIP = RateLimitRule(limit: 3, windowSeconds: 3600)
            $0.passkeySignupLimitPerIP = RateLimitRule(limit: 2, windowSeconds: 3600)
        }) { h in
            for _ in 0..<3 { #expect(try await PasskeyClient(h).loginChallenge().status == .ok) }
            let refused = try await PasskeyClient(h).loginChallenge()
            #expect(refused.status == .tooManyRequests && refused.header("X-RateLimit-Limit") == "3")
            for index in 0..<2 {
                #expect(try await PasskeyClient(h).signupChallenge(["email": "u\(index)@example.com"]).status == .ok)
            }
            #expect(try await PasskeyClient(h).signupChallenge(["email": "u9@example.com"]).status == .tooManyRequests)
        }
    }

    /// Attack (storage exhaustion): a signup profile with megabyte-long fields, stored with
    /// the session.
    @Test("unbounded writes: oversized profile fields are refused")
    func oversizedProfile() async throws {
        try await Harness.run { h in
            let long = String(repeating: "a", count: 5000)
            let response = try await PasskeyClient(h).signupChallenge(["email": "ana@example.com", "name": long])
            #expect(response.status == .badRequest && response.error?.errorDescription.contains("user_profile.name") == true)
        }
    }

    /// Attack (storage exhaustion): expired challenges, sessions and counters pile up forever.
    /// The sweeper removes them, and leaves live ones.
    @Test("unbounded writes: the sweeper removes expired rows and keeps live ones")
    func sweeperRemovesExpiredRows() async throws {
        try await Harness.run { h in
            _ = try await h.start(email: "old@example.com")
            _ = try await PasskeyClient(h).loginChallenge()
            h.clock.advance(by: 3 * 86400)
            _ = try await h.start(email: "new@example.com")
            let counts = try await h.sesame.sweeper.sweep()
            #expect(counts.removed["challenges"] == 1 && counts.removed["passkey_sessions"] == 1)
            #expect((counts.removed["rate_limits"] ?? 0) >= 2, "the old windows of start and passkey_challenge")
            let code = try #require(h.code(for: "new@example.com"))
            #expect(try await h.otp("new@example.com", code).status == .ok, "a live code survives the sweep")
        }
    }
}
