public import Foundation

/// Which of Lock's screens to show.
public enum PasswordlessLoginStep: Sendable, Equatable {
    /// Ask for an email address or phone number.
    case identifier
    /// A code was sent to the identifier: ask for it.
    case code
    /// Done: the state's credentials hold the tokens.
    case signedIn
}

/// Everything Lock's screens show, as one value.
public struct PasswordlessLoginState: Sendable, Equatable {
    /// The screen.
    public internal(set) var step = PasswordlessLoginStep.identifier
    /// What the person typed: an email address, or a phone number starting with `+`.
    public var identifier = ""
    /// The code the person typed.
    public var code = ""
    /// A request is in flight: disable the buttons, show progress.
    public internal(set) var isWorking = false
    /// What to tell the person about the last failure, or nil.
    public internal(set) var errorMessage: String?
    /// When the code may be sent again.
    public internal(set) var resendAvailableAt: Date?
    /// The tokens, once signed in.
    public internal(set) var credentials: Credentials?
    /// A magic link on its way: show its ``MagicLinkWait/matchCode`` while the flow waits.
    public internal(set) var linkWait: MagicLinkWait?

    /// The first screen.
    public init() {}
}

/// Lock's passwordless screens as a UI-free state machine, without observation: codes by
/// email or SMS (with resend and its countdown), a magic link opened on any device, a device
/// key, a passkey. ``PasswordlessLoginModel`` (`@Observable`, iOS 17) and
/// `PasswordlessLoginViewModel` (`ObservableObject`, iOS 15) mirror its ``state``.
@MainActor
public final class PasswordlessLoginFlow {
    /// The state; ``onChange`` hears every change.
    public private(set) var state = PasswordlessLoginState() {
        didSet { if state != oldValue { onChange?(state) } }
    }
    /// Called with the new state after each change (a wrapper publishes it).
    public var onChange: (@MainActor (PasswordlessLoginState) -> Void)?
    /// Seconds between two sends of a code to one address, unless the server asks for longer.
    public static let resendCooldown: TimeInterval = 30

    private let client: SesameClient
    private let now: @Sendable () -> Date
    private var linkTask: Task<Void, Never>?

    /// A flow that signs in through `client`; `now` is the clock the countdown reads.
    public init(client: SesameClient, now: @escaping @Sendable () -> Date = Date.init) {
        self.client = client
        self.now = now
    }

    /// What the person typed as their address.
    public var identifier: String {
        get { state.identifier }
        set { state.identifier = newValue }
    }

    /// The code the person typed.
    public var code: String {
        get { state.code }
        set { state.code = newValue }
    }

    /// Whole seconds until ``resend()`` is allowed (0: now).
    public var secondsUntilResend: Int { ResendCountdown.seconds(until: state.resendAvailableAt, now: now()) }

    /// Sends a code to ``identifier`` and moves to the code step.
    public func sendCode() async {
        guard let identifier = validIdentifier(emailOnly: false) else { return }
        await perform {
            try await self.start(identifier)
            self.state.code = ""
            self.state.step = .code
        }
    }

    /// Sends a new code, once the countdown allows.
    public func resend() async {
        guard state.step == .code, secondsUntilResend == 0 else { return }
        await perform { try await self.start(self.state.identifier) }
    }

    /// Signs in with ``code``; a wrong code keeps the code step with a message.
    public func submitCode() async {
        let code = state.code.trimmingCharacters(in: .whitespaces)
        guard !code.isEmpty else {
            state.errorMessage = "Enter the code you received."
            return
        }
        let identifier = state.identifier
        await finish {
            identifier.contains("@")
                ? try await self.client.login(email: identifier, code: code)
                : try await self.client.login(phoneNumber: identifier, code: code)
        }
    }

    /// Mails a magic link to ``identifier`` (an email address) and waits until it is opened
    /// on any device; ``PasswordlessLoginState/linkWait`` holds the number to show meanwhile.
    public func sendLink() async {
        guard let email = validIdentifier(emailOnly: true) else { return }
        var started: MagicLinkWait?
        await perform { started = try await self.client.startMagicLink(email: email) }
        guard let wait = started else { return }
        state.linkWait = wait
        let task = Task { await self.finish { try await self.client.waitForMagicLink(wait) } }
        linkTask = task
        await task.value
        // A wait cancelled (and perhaps started again) meanwhile is no longer this one.
        guard linkTask == task else { return }
        linkTask = nil
        state.linkWait = nil
    }

    /// Stops waiting for a magic link, back to the first screen.
    public func cancelLink() {
        linkTask?.cancel()
        linkTask = nil
        state.linkWait = nil
        state.isWorking = false
    }

    /// Signs in with this device's key (Face ID or Touch ID first, as its verifier asks).
    public func signIn(with deviceKey: DeviceKeyAuthentication) async {
        await finish { try await deviceKey.start() }
    }

    /// Signs in with a passkey the authenticator picks.
    public func signInWithPasskey(_ authenticator: any PasskeyAuthenticator) async {
        await finish { try await self.client.loginWithPasskey(authenticator: authenticator) }
    }

    /// Back to the identifier step, to use another address.
    public func changeIdentifier() {
        cancelLink()
        state.step = .identifier
        state.code = ""
        state.errorMessage = nil
        state.resendAvailableAt = nil
    }

    /// The trimmed identifier, or nil with a message when it cannot be sent to.
    private func validIdentifier(emailOnly: Bool) -> String? {
        let identifier = LoginIdentifier.normalized(state.identifier)
        let kind = LoginIdentifier.kind(of: identifier)
        guard kind == .email || (kind == .phoneNumber && !emailOnly) else {
            state.errorMessage =
                emailOnly
                ? "Enter your email address." : "Enter an email address or a phone number that starts with +."
            return nil
        }
        state.identifier = identifier
        return identifier
    }

    private func start(_ identifier: String) async throws {
        let started =
            identifier.contains("@")
            ? try await client.startPasswordless(email: identifier)
            : try await client.startPasswordless(phoneNumber: identifier)
        state.resendAvailableAt = ResendCountdown.availableAt(
            sentAt: now(), cooldown: Self.resendCooldown, remaining: started.remaining, resetsAt: started.resetsAt)
    }

    /// Signs in with `login`'s credentials.
    private func finish(_ login: () async throws -> Credentials) async {
        await perform {
            let credentials = try await login()
            // Stopped while the answer was on its way: the person chose not to sign in.
            try Task.checkCancellation()
            self.state.credentials = credentials
            self.state.step = .signedIn
        }
    }

    /// Runs `body` with `isWorking` set, turning a failure into `errorMessage`; a
    /// cancellation (the person closed a prompt, or stopped waiting) is no failure.
    private func perform(_ body: () async throws -> Void) async {
        state.isWorking = true
        state.errorMessage = nil
        defer { state.isWorking = false }
        do {
            try await body()
        } catch  where error is CancellationError || Task.isCancelled {
            return
        } catch let error as SesameClientError {
            if error.isRateLimited, let reset = error.rateLimitReset { state.resendAvailableAt = reset }
            state.errorMessage = Self.message(for: error)
        } catch {
            state.errorMessage = "Something went wrong. Try again."
        }
    }

    /// The sentence for a person, not for a log; nil when there is nothing to say (they
    /// cancelled).
    static func message(for error: SesameClientError) -> String? {
        if error.isBiometricCancelled { return nil }
        if error.isNetworkError { return "No connection to the server. Check your network and try again." }
        if error.isRateLimited { return "Too many attempts. Wait a moment before trying again." }
        if error.isCodeExpired { return "That code has expired. Ask for a new one." }
        if error.isCodeUsedUp { return "That code can no longer be used. Ask for a new one." }
        if error.isAccessDenied { return "The sign-in was refused on the other device." }
        if error.isLinkExpired { return "The link expired. Ask for a new one." }
        if error.isInvalidCredentials { return "That code did not work. Check it, or ask for a new one." }
        if error.isPresenceDeclined || error.biometricFailure != nil { return "Sign-in was not confirmed. Try again." }
        return error.message
    }
}

/// An observable copy of a ``PasswordlessLoginFlow``: it keeps ``state`` (the flow's, set on
/// each change, so observation sees it) and gets the flow's fields and actions from here.
@MainActor
public protocol PasswordlessLoginFlowMirror: AnyObject {
    /// The flow's state as last published.
    var state: PasswordlessLoginState { get }
    /// The logic.
    var flow: PasswordlessLoginFlow { get }
}

extension PasswordlessLoginFlowMirror {
    /// What the person typed: an email address, or a phone number starting with `+`.
    public var identifier: String {
        get { state.identifier }
        set { flow.identifier = newValue }
    }

    /// The code the person typed.
    public var code: String {
        get { state.code }
        set { flow.code = newValue }
    }

    /// Whole seconds until `resend()` is allowed (0: now).
    public var secondsUntilResend: Int { flow.secondsUntilResend }

    /// Sends a code to ``identifier`` and moves to the code step.
    public func sendCode() async { await flow.sendCode() }

    /// Sends a new code, once the countdown allows.
    public func resend() async { await flow.resend() }

    /// Signs in with ``code``; a wrong code keeps the code step with a message.
    public func submitCode() async { await flow.submitCode() }

    /// Mails a magic link and waits until it is opened.
    public func sendLink() async { await flow.sendLink() }

    /// Stops waiting for a magic link.
    public func cancelLink() { flow.cancelLink() }

    /// Signs in with this device's key.
    public func signIn(with deviceKey: DeviceKeyAuthentication) async { await flow.signIn(with: deviceKey) }

    /// Signs in with a passkey.
    public func signInWithPasskey(_ authenticator: any PasskeyAuthenticator) async {
        await flow.signInWithPasskey(authenticator)
    }

    /// Back to the identifier step, to use another address.
    public func changeIdentifier() { flow.changeIdentifier() }
}
