public import Foundation

/// What the person is asked before stored credentials are handed out: Auth0.swift's
/// `CredentialsManager.enableBiometrics(withTitle:cancelTitle:fallbackTitle:evaluationPolicy:)`.
public struct BiometricPolicy: Sendable, Equatable {
    /// Which proof is enough.
    public enum Evaluation: Sendable, Equatable {
        /// Face ID, Touch ID or Optic ID only (`LAPolicy.deviceOwnerAuthenticationWithBiometrics`,
        /// Auth0.swift's default). The fallback button ends the prompt with
        /// ``BiometricFailure/fallback``: the app offers its own way in (a code by email).
        case biometrics
        /// Biometrics, or the device passcode when they fail or are locked out
        /// (`LAPolicy.deviceOwnerAuthentication`).
        case biometricsOrPasscode
    }

    /// The sentence in the system prompt (Face ID shows it; Touch ID shows it under the title).
    public var reason: String
    /// Which proof is enough.
    public var evaluation: Evaluation
    /// The cancel button's title; nil: the system's.
    public var cancelTitle: String?
    /// The fallback button's title; nil: the system's, "" hides the button.
    public var fallbackTitle: String?
    /// How long one success lets later requests through without asking again; 0 asks every
    /// time (Auth0.swift's behaviour).
    public var reuseDuration: TimeInterval

    /// A policy asking with `reason`.
    public init(
        reason: String, evaluation: Evaluation = .biometrics, cancelTitle: String? = nil, fallbackTitle: String? = nil,
        reuseDuration: TimeInterval = 0
    ) {
        self.reason = reason
        self.evaluation = evaluation
        self.cancelTitle = cancelTitle
        self.fallbackTitle = fallbackTitle
        self.reuseDuration = reuseDuration
    }

    /// How a Keychain item under this policy is protected: always the current biometry set
    /// (enrolling a new face or finger locks the item), or the passcode when the policy
    /// accepts it, so the item asks for no more than the prompt did.
    public var keychainProtection: KeychainProtection {
        KeychainProtection(biometryCurrentSet: true, orDevicePasscode: evaluation == .biometricsOrPasscode)
    }
}

/// A Keychain item's access control (`SecAccessControlCreateFlags`), decided here so it is
/// tested where the Apple file that applies it cannot be.
public struct KeychainProtection: Sendable, Equatable {
    /// `.biometryCurrentSet`.
    public var biometryCurrentSet: Bool
    /// `.or` + `.devicePasscode`.
    public var orDevicePasscode: Bool

    /// Creates a protection.
    public init(biometryCurrentSet: Bool, orDevicePasscode: Bool) {
        self.biometryCurrentSet = biometryCurrentSet
        self.orDevicePasscode = orDevicePasscode
    }
}

/// When a Keychain item can be read (`kSecAttrAccessible…`). None of them syncs to iCloud or
/// moves to another device in a backup: a session belongs to one device.
public enum KeychainAccessibility: Sendable, Equatable {
    /// From the first unlock after a restart until the next restart, so a background refresh
    /// can renew while the screen is locked (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`).
    case afterFirstUnlockThisDeviceOnly
    /// Only while the device is unlocked (`kSecAttrAccessibleWhenUnlockedThisDeviceOnly`).
    case whenUnlockedThisDeviceOnly
    /// Only while unlocked, and only while a passcode is set: removing the passcode deletes
    /// the item (`kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`).
    case whenPasscodeSetThisDeviceOnly
}

/// Why the person was not confirmed, from LocalAuthentication's `LAError` or the Keychain's
/// status.
public enum BiometricFailure: Error, Sendable, Equatable {
    /// The person tapped cancel.
    case cancelled
    /// The system or the app ended the prompt (another app came forward, a call): ask again
    /// when the app is back.
    case interrupted
    /// The person chose the fallback button (``BiometricPolicy/Evaluation/biometrics`` only).
    case fallback
    /// The face or finger was not recognised.
    case notRecognised
    /// Too many failures: biometry needs the passcode first.
    case lockedOut
    /// No biometry on this device, or the app may not use it (`NSFaceIDUsageDescription`).
    case unavailable
    /// Biometry exists but no face or finger is enrolled.
    case notEnrolled
    /// The device has no passcode.
    case passcodeNotSet
    /// The prompt could not be shown (no interaction allowed now).
    case notInteractive
    /// Another `LAError` code or Keychain status.
    case other(Int)

    /// The failure for an `LAError.Code` raw value (LocalAuthentication's documented codes).
    public init(laErrorCode code: Int) {
        self =
            switch code {
            case -1: .notRecognised  // authenticationFailed
            case -2: .cancelled  // userCancel
            case -3: .fallback  // userFallback
            case -4, -9, -10: .interrupted  // systemCancel, appCancel, invalidContext
            case -5: .passcodeNotSet
            case -6: .unavailable  // biometryNotAvailable
            case -7: .notEnrolled  // biometryNotEnrolled
            case -8: .lockedOut  // biometryLockout
            case -1004: .notInteractive
            default: .other(code)
            }
    }

    /// The failure for a Keychain read's `OSStatus` on a biometry-protected item, or nil
    /// when the status is not about the person.
    public init?(keychainStatus status: Int) {
        switch status {
        case -128: self = .cancelled  // errSecUserCanceled
        case -25293: self = .notRecognised  // errSecAuthFailed
        case -25308: self = .notInteractive  // errSecInteractionNotAllowed
        default: return nil
        }
    }

    /// The person chose not to go on (cancel or fallback): show the sign-in screen quietly,
    /// not an error.
    public var isCancellation: Bool { self == .cancelled || self == .fallback }
}

/// What asks the person: LocalAuthentication on Apple platforms (`LocalAuthenticationBiometrics`),
/// a fake in tests.
public protocol BiometricAuthenticator: Sendable {
    /// Nil when `evaluation` can be asked on this device now, else why not
    /// (`LAContext.canEvaluatePolicy`).
    func unavailability(of evaluation: BiometricPolicy.Evaluation) -> BiometricFailure?
    /// Shows the system prompt; returns when the person was confirmed.
    /// - Throws: ``BiometricFailure``.
    func evaluate(_ policy: BiometricPolicy) async throws
    /// Forgets the last confirmation (the gate was invalidated: a sign-out).
    func invalidate()
}

extension BiometricAuthenticator {
    /// Nothing to forget.
    public func invalidate() {}
}
