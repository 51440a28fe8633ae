import Foundation
import HTTPTypes
import HummingbirdTesting
import SQLKit
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

@testable import SesameStorageSQL

/// A code exchange whose code was consumed but whose answer the client never got (the login's
/// next step failed, or the request's deadline fired) may be retried by the same client, and
/// by no one else.
@Suite("Code exchange retries after a lost answer")
struct CodeRetryTests {
    static let ana = "ana@example.com"

    /// Fault: the database fails after the exchange's own step consumed the code and before the
    /// login was recorded; the client is answered with an error and retries. It must not be told
    /// that the code it typed right is wrong.
    @Test("lost answer: the retry of an exchange that consumed the code signs the same person in")
    func retryAfterALostAnswer() async throws {
        let storage = try await SQLStorage.sqlite(path: nil)
        try await Harness.run(storage: storage) { h in
            let code = try await Self.consumedWithoutAnswer(h, storage)
            h.clock.advance(by: 5)
            let retried = try await h.otp(Self.ana, code)
            #expect(retried.status == .ok, "\(retried.text)")
            let again = try await h.otp(Self.ana, code)
            #expect(
                again.status == .forbidden && again.error?.errorDescription == "Wrong email or verification code.",
                "once a login from it was answered, the code is spent")
        }
    }

    /// Attack: a replay of a used code by the same application (the client id is public) within
    /// the retry window. Its login was answered, so the code is as dead as ever.
    @Test("replay within the window: a code whose login was answered is refused")
    func answeredCodeRefused() async throws {
        try await Harness.run { h in
            #expect(try await h.start(email: Self.ana).status == .ok)
            let code = try #require(h.code(for: Self.ana))
            #expect(try await h.otp(Self.ana, code).status == .ok)
            for advance in [0.0, 11, 5] {
                h.clock.advance(by: advance)
                let replayed = try await h.otp(Self.ana, code)
                #expect(replayed.status == .forbidden && replayed.error?.errorDescription == "Wrong email or verification code.")
            }
        }
    }

    /// Fault: the client retries while the request that consumed the code is still at work on
    /// it (a double submit, a retry before the stalled first attempt gave up). It is told to try
    /// again shortly, not that the code it typed right is wrong, and no second login happens.
    @Test("in-flight exchange: the right code answers 503 while another request works on it")
    func inFlightExchange() async throws {
        let storage = try await SQLStorage.sqlite(path: nil)
        try await Harness.run(storage: storage) { h in
            let code = try await Self.consumedWithoutAnswer(h, storage)
            // Another request took the code back up and is still at work on it.
            let until = h.clock.now().addingTimeInterval(10).epochMilliseconds
            try await storage.executor.write { db in
                try await db.raw("UPDATE challenges SET retry_lease_until = \(bind: until)").run()
            }
            let busy = try await h.otp(Self.ana, code)
            #expect(busy.status == .serviceUnavailable, "\(busy.text)")
            h.clock.advance(by: 11)
            #expect(try await h.otp(Self.ana, code).status == .ok, "the consumer's lease ran out: the retry completes it")
        }
    }

    /// Attack: another application presents the code that was consumed for the first one,
    /// within the retry window. The retry is only the consumer's.
    @Test("cross-application replay: another application cannot use the retry of a consumed code")
    func retryIsTheConsumersOnly() async throws {
        let storage = try await SQLStorage.sqlite(path: nil)
        try await Harness.run(storage: storage) { h in
            let other = try await h.seedApplication(name: "Other App")
            let code = try await Self.consumedWithoutAnswer(h, storage)
            let replayed = try await h.post(
                "/oauth/token",
                [
                    "grant_type": GrantType.passwordlessOTP, "client_id": other, "realm": "email", "username": Self.ana,
                    "otp": code, "scope": "openid",
                ])
            #expect(replayed.status == .forbidden, "\(replayed.text)")
        }
    }

    /// Attack: whoever sees a code after it was used (over a shoulder, in a mail read later)
    /// replays it. Once the retry window has passed the code is dead.
    @Test("late replay: a consumed code is refused after the retry window")
    func lateReplayRefused() async throws {
        try await Harness.run { h in
            #expect(try await h.start(email: Self.ana).status == .ok)
            let code = try #require(h.code(for: Self.ana))
            #expect(try await h.otp(Self.ana, code).status == .ok)
            h.clock.advance(by: 31)
            let replayed = try await h.otp(Self.ana, code)
            #expect(replayed.status == .forbidden && replayed.error?.errorDescription == "Wrong email or verification code.")
        }
    }

    /// Attack: guessing at a code that was just used, through the retry path: every retry is
    /// an attempt, so only a few guesses are possible and then even the right code is refused.
    @Test("guessing a consumed code: the retries are counted and capped")
    func guessingAConsumedCodeIsCapped() async throws {
        try await Harness.run { h in
            #expect(try await h.start(email: Self.ana).status == .ok)
            let code = try #require(h.code(for: Self.ana))
            #expect(try await h.otp(Self.ana, code).status == .ok)
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 0..<10 { _ = try await h.otp(Self.ana, wrong) }
            #expect(try await h.otp(Self.ana, code).status == .forbidden, "the retries are used up")
        }
    }

    /// Starts a code and exchanges it while the login's own write fails: the code is consumed
    /// and the client gets an error, not tokens. Returns the code.
    static func consumedWithoutAnswer(_ h: Harness, _ storage: SQLStorage) async throws -> String {
        #expect(try await h.start(email: ana).status == .ok)
        let code = try #require(h.code(for: ana))
        try await storage.executor.write { db in
            try await db.raw(
                """
                CREATE TRIGGER database_away BEFORE INSERT ON users
                BEGIN SELECT RAISE(ABORT, 'terminating connection due to administrator command'); END
                """
            ).run()
        }
        let lost = try await h.otp(ana, code)
        #expect(lost.status != .ok, "the login failed after the code was consumed")
        try await storage.executor.write { db in try await db.raw("DROP TRIGGER database_away").run() }
        let challenge = try await storage.newestChallenge(connection: "email", recipient: ana)
        try #require(challenge?.consumedAt != nil, "the code was consumed")
        return code
    }
}
