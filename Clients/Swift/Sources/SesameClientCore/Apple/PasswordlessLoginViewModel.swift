// Apple platforms only (Combine): not compiled on Linux. The logic is PasswordlessLoginFlow's,
// tested on Linux; this file only publishes its state.
#if canImport(Combine)
    public import Combine
    public import Foundation

    /// ``PasswordlessLoginFlow`` as an `ObservableObject`, for SwiftUI on iOS 15 and 16
    /// (`@StateObject var model = PasswordlessLoginViewModel(client: sesame)`); on iOS 17
    /// ``PasswordlessLoginModel`` is the `@Observable` equivalent.
    @MainActor
    public final class PasswordlessLoginViewModel: ObservableObject, PasswordlessLoginFlowMirror {
        /// Everything the screens show.
        @Published public private(set) var state: PasswordlessLoginState
        /// The logic behind it.
        public let flow: PasswordlessLoginFlow

        /// A model that signs in through `client`; `now` is the clock the countdown reads.
        public init(client: SesameClient, now: @escaping @Sendable () -> Date = Date.init) {
            flow = PasswordlessLoginFlow(client: client, now: now)
            state = flow.state
            flow.onChange = { [weak self] state in self?.state = state }
        }
    }
#endif
