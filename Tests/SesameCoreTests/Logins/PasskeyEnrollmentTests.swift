import Foundation
import SesameCore
import SesameStorageConformance
import Testing

/// Adding a passkey to a signed-in person's account, through Core alone.
@Suite("Core: adding a passkey needs a recent login")
struct PasskeyEnrollmentTests {

    // Attack: a browser session cookie stolen (or a shared computer left signed in) is replayed
    // long after the login to add the attacker's passkey, a lasting way into the account. Core's
    // enrollment refuses a login older than the recent-login window, whoever calls it.
    @Test("an old login, or none, cannot add a passkey; a recent one can")
    func staleSessionAddsPasskey() async throws {
        try await CoreWorld.run { world in
            let tokens = try await world.signIn("ana@example.com")
            let grant = try await world.sesame.tokens.authenticate(accessToken: tokens.accessToken)
            let user = grant.user
            let window = TimeInterval(world.sesame.passkeys.recentLoginWindow)
            let old = world.clock.now().addingTimeInterval(-window - 1)
            for authTime in [old, nil] {
                let start = try await refusal {
                    _ = try await world.sesame.passkeys.startEnrollment(
                        user: user, authTime: authTime, application: world.application, ip: "198.51.100.7")
                }
                let finish = try await refusal {
                    _ = try await world.sesame.passkeys.finishEnrollment(
                        authSession: "session", response: Data("{}".utf8), user: user, authTime: authTime,
                        clientID: world.application.clientID, ip: nil)
                }
                for error in [start, finish] {
                    #expect(error.code.rawValue == "access_denied")
                    #expect(error.message == "Sign in again to add a passkey.")
                }
            }
            let challenge = try await world.sesame.passkeys.startEnrollment(
                user: user, authTime: world.clock.now().addingTimeInterval(-window + 1), application: world.application,
                ip: "198.51.100.7")
            #expect(!challenge.authSession.isEmpty)
        }
    }
}
