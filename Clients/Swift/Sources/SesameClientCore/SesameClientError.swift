public import Foundation
import SesameAPI

/// Why a call to Sesame failed, in the terms an app shows to a person: a wrong or dead code,
/// too many attempts (and until when), no network, or the server's own words.
public struct SesameClientError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Reason: Sendable, Equatable {
        case server(status: Int, code: String, message: String)
        case network(String)
        case invalidResponse(String)
        case invalidIDToken(String)
        case notSignedIn
        case presenceDeclined
        case biometric(BiometricFailure)
    }

    private let reason: Reason
    /// When a rate limit ends (from `X-RateLimit-Reset`), for a 429.
    public let rateLimitReset: Date?
    /// The server's `error_reason`, when it sent one (`code_expired`, `code_attempts_exhausted`).
    public let serverReason: String?

    private init(_ reason: Reason, rateLimitReset: Date? = nil, serverReason: String? = nil) {
        self.reason = reason
        self.rateLimitReset = rateLimitReset
        self.serverReason = serverReason
    }

    /// The server refused: its HTTP status, Auth0's `error` and `error_description`, and
    /// Sesame's `error_reason`.
    static func server(status: Int, code: String, message: String, errorReason: String? = nil, rateLimitReset: Date?)
        -> SesameClientError
    {
        SesameClientError(
            .server(status: status, code: code, message: message), rateLimitReset: rateLimitReset, serverReason: errorReason)
    }

    /// The server could not be reached, or the connection failed.
    static func network(_ detail: String) -> SesameClientError { SesameClientError(.network(detail)) }

    /// The server answered something that is not what the API promises.
    static func invalidResponse(_ detail: String) -> SesameClientError { SesameClientError(.invalidResponse(detail)) }

    /// An id_token failed verification (signature, issuer, audience, expiry or nonce).
    static func invalidIDToken(_ detail: String) -> SesameClientError { SesameClientError(.invalidIDToken(detail)) }

    /// No session is stored, or it cannot be renewed: sign in again.
    static let notSignedIn = SesameClientError(.notSignedIn)

    /// The person did not confirm it was them.
    static let presenceDeclined = SesameClientError(.presenceDeclined)

    /// Face ID, Touch ID or the passcode did not confirm the person.
    static func biometric(_ failure: BiometricFailure) -> SesameClientError { SesameClientError(.biometric(failure)) }

    /// The server's `error` code, when it sent one (`invalid_grant`, `too_many_attempts`, …).
    public var code: String? {
        if case .server(_, let code, _) = reason { return code }
        return nil
    }

    /// The server's `error_description`, or what went wrong on this side.
    public var message: String {
        switch reason {
        case .server(_, _, let message): message
        case .network(let detail): "Sesame could not be reached: \(detail)"
        case .invalidResponse(let detail): "Sesame answered unexpectedly: \(detail)"
        case .invalidIDToken(let detail): "The id_token is not valid: \(detail)"
        case .notSignedIn: "not signed in"
        case .presenceDeclined: "not confirmed"
        case .biometric(let failure): "not confirmed: \(failure)"
        }
    }

    /// The HTTP status, when the server answered.
    public var status: Int? {
        if case .server(let status, _, _) = reason { return status }
        return nil
    }

    /// A wrong, used, superseded or expired code or link, or a refresh token that no longer
    /// works. ``isCodeExpired`` and ``isCodeUsedUp`` say when typing again cannot help.
    public var isInvalidCredentials: Bool { code == "invalid_grant" }

    /// The code's lifetime is over: offer to send a new one.
    public var isCodeExpired: Bool { isInvalidCredentials && serverReason == ErrorReason.codeExpired }

    /// The code took its last wrong guess and is dead: offer to send a new one.
    public var isCodeUsedUp: Bool { isInvalidCredentials && serverReason == ErrorReason.codeAttemptsExhausted }

    /// The sign-in was refused: a magic link was refused on the other device, or its number
    /// did not match.
    public var isAccessDenied: Bool { code == "access_denied" }

    /// A magic link expired, or its session was already used: start again.
    public var isLinkExpired: Bool { code == "expired_token" }

    /// Too many requests or wrong codes; ``rateLimitReset`` says when to try again.
    public var isRateLimited: Bool { status == 429 }

    /// No answer from the server: offline, refused connection, timeout.
    public var isNetworkError: Bool {
        if case .network = reason { return true }
        return false
    }

    /// The id_token did not verify.
    public var isInvalidIDToken: Bool {
        if case .invalidIDToken = reason { return true }
        return false
    }

    /// The person did not confirm it was them before a device key signed.
    public var isPresenceDeclined: Bool { reason == .presenceDeclined }

    /// There is no session to use: the app shows its sign-in screen.
    public var isNotSignedIn: Bool { reason == .notSignedIn }

    /// Why Face ID, Touch ID or the passcode did not confirm the person, when that was the
    /// failure (``CredentialsManager/enableBiometrics(_:)``).
    public var biometricFailure: BiometricFailure? {
        if case .biometric(let failure) = reason { return failure }
        return nil
    }

    /// The person cancelled the biometric prompt or chose its fallback: show the sign-in
    /// screen without an error.
    public var isBiometricCancelled: Bool { biometricFailure?.isCancellation == true }

    public var description: String { code.map { "\($0): \(message)" } ?? message }
}
