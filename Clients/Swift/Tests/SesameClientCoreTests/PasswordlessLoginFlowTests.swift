import Foundation
import Observation
import SesameClientCore
import Testing

/// Lock's screens as a state machine, against a fake server: what each screen shows, and
/// when the person may ask for another code.
@Suite("SesameClient: passwordless login flow")
@MainActor
struct PasswordlessLoginFlowTests {
    @Test("identifier → code → signed in; a wrong code and a bad identifier are messages")
    func codeLogin() async {
        let server = FakeTokenServer()
        let flow = PasswordlessLoginFlow(client: server.client)
        flow.identifier = "not an address"
        await flow.sendCode()
        #expect(flow.state.step == .identifier && flow.state.errorMessage?.contains("email address") == true)
        #expect(server.starts.current.isEmpty)

        flow.identifier = " +1 (415) 555-0123 "
        await flow.sendCode()
        #expect(flow.state.step == .code && flow.state.errorMessage == nil)
        #expect(server.starts.current == ["+14155550123"])

        flow.code = "000000"
        await flow.submitCode()
        #expect(flow.state.step == .code && flow.state.errorMessage?.contains("did not work") == true)
        flow.code = "123456"
        await flow.submitCode()
        #expect(flow.state.step == .signedIn && flow.state.credentials?.accessToken == "code-login" && !flow.state.isWorking)
    }

    @Test("resend waits for the 30 s countdown, or for the server's window after its last send")
    func resendCountdown() async {
        let server = FakeTokenServer()
        let clock = Locked(Date(timeIntervalSince1970: 1_000_000))
        let flow = PasswordlessLoginFlow(client: server.client, now: { clock.current })
        flow.identifier = "ana@example.com"
        await flow.sendCode()
        #expect(flow.secondsUntilResend == 30)
        clock.update { $0 += 29.5 }
        #expect(flow.secondsUntilResend == 1)
        await flow.resend()
        #expect(server.starts.current.count == 1)
        clock.update { $0 += 0.5 }
        server.rateLimit.update { $0 = (0, clock.current.addingTimeInterval(120)) }
        await flow.resend()
        #expect(server.starts.current.count == 2)
        #expect(flow.secondsUntilResend == 120)
        flow.changeIdentifier()
        #expect(flow.state.step == .identifier && flow.secondsUntilResend == 0)
    }

    @Test("a magic link shows its number while waiting, and signs in when opened")
    func magicLink() async {
        let server = FakeTokenServer()
        let flow = PasswordlessLoginFlow(client: server.client)
        flow.identifier = "+14155550123"
        await flow.sendLink()
        #expect(flow.state.errorMessage == "Enter your email address.")
        flow.identifier = "ana@example.com"
        let waiting = Task { await flow.sendLink() }
        var arrivals = server.arrivals.makeAsyncIterator()
        _ = await arrivals.next()
        #expect(flow.state.linkWait?.matchCode == "42" && flow.state.isWorking)
        await server.gate.open()
        await waiting.value
        #expect(flow.state.step == .signedIn && flow.state.credentials?.accessToken == "link-login")
        #expect(flow.state.linkWait == nil)
    }

    @Test("stopping a link wait goes back quietly")
    func cancelLink() async {
        let server = FakeTokenServer()
        let flow = PasswordlessLoginFlow(client: server.client)
        flow.identifier = "ana@example.com"
        let waiting = Task { await flow.sendLink() }
        var arrivals = server.arrivals.makeAsyncIterator()
        _ = await arrivals.next()
        flow.cancelLink()
        await server.gate.open()
        await waiting.value
        #expect(flow.state.step == .identifier && flow.state.errorMessage == nil && flow.state.linkWait == nil)
        #expect(!flow.state.isWorking && flow.state.credentials == nil)
    }

    @Test("a passkey signs in; closing the sheet or a cancelled Face ID prompt shows no message")
    func passkeyAndCancellations() async {
        let server = FakeTokenServer()
        let flow = PasswordlessLoginFlow(client: server.client)
        await flow.signInWithPasskey(ClosedSheet())
        #expect(flow.state.step == .identifier && flow.state.errorMessage == nil && !flow.state.isWorking)
        await flow.signInWithPasskey(PlatformLike())
        #expect(flow.state.step == .signedIn && flow.state.credentials?.accessToken == "passkey-login")
    }

    @Test("every change reaches onChange, so a wrapper can publish it")
    func changesArePublished() async {
        let flow = PasswordlessLoginFlow(client: FakeTokenServer().client)
        let seen = Locked<[PasswordlessLoginState]>([])
        flow.onChange = { state in seen.update { $0.append(state) } }
        flow.identifier = "ana@example.com"
        await flow.sendCode()
        #expect(seen.current.first?.identifier == "ana@example.com")
        #expect(seen.current.contains { $0.isWorking } && seen.current.last == flow.state)
    }
}

/// The `@Observable` model mirrors the flow: the same fields, and observers hear each change.
@Suite("SesameClient: passwordless login model over the flow")
@MainActor
struct PasswordlessLoginModelMirrorTests {
    @Test("the model's fields follow the flow, and observation sees a sign-in")
    func mirrorsAndNotifies() async {
        let model = PasswordlessLoginModel(client: FakeTokenServer().client)
        model.identifier = " ana@example.com "
        await model.sendCode()
        #expect(model.step == .code && model.identifier == "ana@example.com" && model.secondsUntilResend > 0)
        let changed = Locked(false)
        withObservationTracking {
            _ = model.step
        } onChange: {
            changed.update { $0 = true }
        }
        model.code = "123456"
        await model.submitCode()
        #expect(changed.current && model.step == .signedIn && model.credentials?.accessToken == "code-login")
        model.changeIdentifier()
        #expect(model.step == .identifier && model.code.isEmpty && !model.isWorking && model.errorMessage == nil)
    }
}

/// A passkey sheet the person closes (AuthenticationServices' `canceled`).
struct ClosedSheet: PasskeyAuthenticator {
    func register(_ request: PasskeyRegistrationRequest) async throws -> PasskeyResponse {
        throw PasskeyResponse.authorizationError(code: 1001)
    }

    func authenticate(_ request: PasskeyAuthenticationRequest) async throws -> PasskeyResponse {
        throw PasskeyResponse.authorizationError(code: 1001)
    }
}
