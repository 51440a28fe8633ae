public import Foundation
public import Observation

/// Lock's passwordless screens as a UI-free state machine: enter an email or phone number →
/// a code is sent → enter the code → signed in, with resend (and its countdown), a way back
/// to change the address, and every failure as state a view shows. A SwiftUI or UIKit view
/// binds to it (`@Observable`); docs/sdk.md has a SwiftUI view.
///
/// `@Observable` needs iOS 17 and macOS 14; on iOS 15 and 16 use `PasswordlessLoginViewModel`
/// (an `ObservableObject`). Both mirror a ``PasswordlessLoginFlow``, which holds the logic.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
@MainActor
@Observable
public final class PasswordlessLoginModel: PasswordlessLoginFlowMirror {
    /// Which screen to show.
    public typealias Step = PasswordlessLoginStep

    /// The flow's state, mirrored so that observation sees each change.
    public private(set) var state: PasswordlessLoginState
    /// The logic the model mirrors (magic links, device keys and passkeys too).
    public let flow: PasswordlessLoginFlow

    /// The screen.
    public var step: Step { state.step }
    /// A request is in flight: disable the buttons, show progress.
    public var isWorking: Bool { state.isWorking }
    /// What to tell the person about the last failure, or nil.
    public var errorMessage: String? { state.errorMessage }
    /// When the code may be sent again.
    public var resendAvailableAt: Date? { state.resendAvailableAt }
    /// The tokens, once signed in.
    public var credentials: Credentials? { state.credentials }
    /// Seconds between two sends of a code to one address, unless the server asks for longer.
    public static let resendCooldown = PasswordlessLoginFlow.resendCooldown

    /// A model that signs in through `client`; `now` is the clock the countdown reads.
    public init(client: SesameClient, now: @escaping @Sendable () -> Date = Date.init) {
        flow = PasswordlessLoginFlow(client: client, now: now)
        state = flow.state
        flow.onChange = { [weak self] state in self?.state = state }
    }
}
