// Apple platforms only (iOS, macOS, visionOS): not compiled on Linux. Every decision (what is
// asked when, the failures, the reuse window) is BiometricGate's and BiometricFailure's,
// tested on Linux; this file only calls LocalAuthentication.
#if canImport(LocalAuthentication) && (os(iOS) || os(macOS) || os(visionOS))
    public import Foundation
    public import LocalAuthentication

    /// Face ID, Touch ID or Optic ID through LocalAuthentication, for ``BiometricGate``. It
    /// keeps the context of its last success, so that a Keychain read with it
    /// (``KeychainCredentialsStore`` with biometrics) succeeds without asking a second time.
    public final class LocalAuthenticationBiometrics: BiometricAuthenticator, @unchecked Sendable {
        // The lock guards `confirmed`; LAContext itself is used by one evaluation at a time.
        private let lock = NSLock()
        private var confirmed: LAContext?
        private let reason: String

        /// Biometrics whose unconfirmed Keychain reads show `reason` in the system prompt.
        public init(reason: String) {
            self.reason = reason
        }

        /// The context for a Keychain read (`kSecUseAuthenticationContext`): the last one
        /// confirmed, or a fresh one that asks with this object's reason.
        public var authenticationContext: LAContext {
            lock.withLock {
                if let confirmed { return confirmed }
                let context = LAContext()
                context.localizedReason = reason
                return context
            }
        }

        /// A context that never shows a prompt (`interactionNotAllowed`), for a Keychain query
        /// that must not ask: whether a session exists.
        public var nonInteractiveContext: LAContext {
            let context = LAContext()
            context.interactionNotAllowed = true
            return context
        }

        /// Forgets the confirmed context: the next Keychain read asks again.
        public func invalidate() {
            lock.withLock {
                confirmed?.invalidate()
                confirmed = nil
            }
        }

        public func unavailability(of evaluation: BiometricPolicy.Evaluation) -> BiometricFailure? {
            var error: NSError?
            if LAContext().canEvaluatePolicy(Self.policy(evaluation), error: &error) { return nil }
            return BiometricFailure(laErrorCode: error?.code ?? LAError.Code.biometryNotAvailable.rawValue)
        }

        public func evaluate(_ policy: BiometricPolicy) async throws {
            let context = LAContext()
            context.localizedReason = policy.reason
            context.localizedCancelTitle = policy.cancelTitle
            context.localizedFallbackTitle = policy.fallbackTitle
            do {
                _ = try await context.evaluatePolicy(Self.policy(policy.evaluation), localizedReason: policy.reason)
            } catch {
                throw BiometricFailure(laErrorCode: (error as NSError).code)
            }
            lock.withLock { confirmed = context }
        }

        private static func policy(_ evaluation: BiometricPolicy.Evaluation) -> LAPolicy {
            switch evaluation {
            case .biometrics: .deviceOwnerAuthenticationWithBiometrics
            case .biometricsOrPasscode: .deviceOwnerAuthentication
            }
        }
    }
#endif
