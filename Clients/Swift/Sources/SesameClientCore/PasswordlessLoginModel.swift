public import Foundation
public import Observation

/// Lock's passwordless screens as a UI-free state machine: enter an email or phone number →
/// a code is sent → enter the code → signed in, with resend (and its countdown), a way back
/// to change the address, and every failure as state a view shows. A SwiftUI or UIKit view
/// binds to it (`@Observable`); docs/sdk.md has a SwiftUI view.
///
/// `@Observable` needs iOS 17 and macOS 14; on earlier systems drive the same client calls
/// from your own view model.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
@MainActor
@Observable
public final class PasswordlessLoginModel {
    /// Which screen to show.
    public enum Step: Sendable, Equatable {
        /// Ask for an email address or phone number.
        case identifier
        /// A code was sent to ``PasswordlessLoginModel/identifier``: ask for it.
        case code
        /// Done: ``PasswordlessLoginModel/credentials`` holds the tokens.
        case signedIn
    }

    /// The screen.
    public private(set) var step: Step = .identifier
    /// What the person typed: an email address, or a phone number starting with `+`.
    public var identifier = ""
    /// The code the person typed.
    public var code = ""
    /// A request is in flight: disable the buttons, show progress.
    public private(set) var isWorking = false
    /// What to tell the person about the last failure, or nil.
    public private(set) var errorMessage: String?
    /// When the code may be sent again.
    public private(set) var resendAvailableAt: Date?
    /// The tokens, once signed in.
    public private(set) var credentials: Credentials?

    private let client: SesameClient
    private let now: @Sendable () -> Date
    /// Seconds between two sends of a code to one address, unless the server asks for longer.
    public static let resendCooldown: TimeInterval = 30

    /// A model that signs in through `client`; `now` is the clock the countdown reads.
    public init(client: SesameClient, now: @escaping @Sendable () -> Date = Date.init) {
        self.client = client
        self.now = now
    }

    /// Whole seconds until ``resend()`` is allowed (0: now).
    public var secondsUntilResend: Int {
        guard let resendAvailableAt else { return 0 }
        return max(0, Int(resendAvailableAt.timeIntervalSince(now()).rounded(.up)))
    }

    /// Sends a code to ``identifier`` and moves to the code step.
    public func sendCode() async {
        let identifier = identifier.trimmingCharacters(in: .whitespaces)
        guard identifier.contains("@") || identifier.hasPrefix("+") else {
            errorMessage = "Enter an email address or a phone number that starts with +."
            return
        }
        self.identifier = identifier
        await perform {
            try await self.start(identifier)
            self.code = ""
            self.step = .code
        }
    }

    /// Sends a new code, once the countdown allows.
    public func resend() async {
        guard step == .code, secondsUntilResend == 0 else { return }
        await perform { try await self.start(self.identifier) }
    }

    /// Signs in with ``code``; a wrong code keeps the code step with a message.
    public func submitCode() async {
        let code = code.trimmingCharacters(in: .whitespaces)
        guard !code.isEmpty else {
            errorMessage = "Enter the code you received."
            return
        }
        await perform {
            self.credentials =
                self.identifier.contains("@")
                ? try await self.client.login(email: self.identifier, code: code)
                : try await self.client.login(phoneNumber: self.identifier, code: code)
            self.step = .signedIn
        }
    }

    /// Back to the identifier step, to use another address.
    public func changeIdentifier() {
        step = .identifier
        code = ""
        errorMessage = nil
        resendAvailableAt = nil
    }

    private func start(_ identifier: String) async throws {
        let started =
            identifier.contains("@")
            ? try await client.startPasswordless(email: identifier)
            : try await client.startPasswordless(phoneNumber: identifier)
        let cooldown = now().addingTimeInterval(Self.resendCooldown)
        // When the server says this was the last send of its window, wait for the window.
        resendAvailableAt = started.remaining == 0 ? max(cooldown, started.resetsAt ?? cooldown) : cooldown
    }

    /// Runs `body` with ``isWorking`` set, turning a failure into ``errorMessage``.
    private func perform(_ body: () async throws -> Void) async {
        isWorking = true
        errorMessage = nil
        defer { isWorking = false }
        do {
            try await body()
        } catch let error as SesameClientError {
            if error.isRateLimited, let reset = error.rateLimitReset { resendAvailableAt = reset }
            errorMessage = Self.message(for: error)
        } catch {
            errorMessage = "Something went wrong. Try again."
        }
    }

    /// The sentence for a person, not for a log.
    static func message(for error: SesameClientError) -> String {
        if error.isNetworkError { return "No connection to the server. Check your network and try again." }
        if error.isRateLimited { return "Too many attempts. Wait a moment before trying again." }
        if error.isCodeExpired { return "That code has expired. Ask for a new one." }
        if error.isCodeUsedUp { return "That code can no longer be used. Ask for a new one." }
        if error.isInvalidCredentials { return "That code did not work. Check it, or ask for a new one." }
        return error.message
    }
}
