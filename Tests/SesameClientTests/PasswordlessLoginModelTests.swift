import Foundation
import SesameClient
import Testing

/// Lock's flow as a model, against a live server: every screen a view would show.
@Suite("SesameClient: passwordless login model")
@MainActor
struct PasswordlessLoginModelTests {
    @Test("identifier → code → signed in; a wrong code and a bad identifier are messages, not exits")
    func happyPathAndMistakes() async throws {
        try await LiveServer.run { server in
            let model = PasswordlessLoginModel(client: SesameClient(domain: server.domain, clientID: server.clientID))
            model.identifier = "not an address"
            await model.sendCode()
            #expect(model.step == .identifier && model.errorMessage?.contains("email address") == true)

            model.identifier = " ana@example.com "
            await model.sendCode()
            #expect(model.step == .code && model.errorMessage == nil && model.identifier == "ana@example.com")
            #expect(model.secondsUntilResend > 0 && model.secondsUntilResend <= 30)

            model.code = "000000"
            await model.submitCode()
            #expect(model.step == .code && model.errorMessage?.contains("did not work") == true)

            model.code = try await server.code(for: "ana@example.com")
            await model.submitCode()
            #expect(model.step == .signedIn && model.credentials?.idToken != nil && !model.isWorking)
        }
    }

    @Test("resend waits for the countdown; changing the address goes back to the first screen")
    func resendAndChange() async throws {
        try await LiveServer.run { server in
            let clock = MovableClock()
            let model = PasswordlessLoginModel(
                client: SesameClient(domain: server.domain, clientID: server.clientID), now: { clock.now })
            model.identifier = "+14155550123"
            await model.sendCode()
            let first = try await server.code(for: "+14155550123")
            await model.resend()
            #expect(try await server.code(for: "+14155550123") == first, "no resend before the countdown ends")
            clock.now = clock.now.addingTimeInterval(31)
            await model.resend()
            #expect(try await server.code(for: "+14155550123") != first, "a new code after it")
            model.changeIdentifier()
            #expect(model.step == .identifier && model.code.isEmpty && model.secondsUntilResend == 0)
        }
    }

    @Test("no server: a message about the connection")
    func offline() async {
        let model = PasswordlessLoginModel(client: SesameClient(domain: URL(string: "http://127.0.0.1:9")!, clientID: "app"))
        model.identifier = "ana@example.com"
        await model.sendCode()
        #expect(model.step == .identifier && model.errorMessage?.contains("No connection") == true)
    }
}

/// A clock a test moves by hand.
final class MovableClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date()

    var now: Date {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
}
