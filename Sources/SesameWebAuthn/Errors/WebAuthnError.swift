/// A WebAuthn verification failure that names exactly which check failed.
///
/// Every error has a stable machine ``name`` (for example `challenge_mismatch`) and a one-line
/// human ``message``. Equality compares only the check that failed, never the optional
/// ``detail``, so tests and callers can match errors with `==`:
///
/// ```swift
/// do {
///     _ = try relyingParty.verifyAuthentication(credential: credential, ...)
/// } catch let error where error == .challengeMismatch {
///     // the browser answered a different challenge
/// }
/// ```
public struct WebAuthnError: Error, Hashable, Sendable, CustomStringConvertible {
    let code: Code

    /// Extra context for logs (for example which certificate check failed). Never shown to end users.
    public let detail: String?

    init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// The stable machine name of the failed check, e.g. `challenge_mismatch`.
    public var name: String { code.rawValue }

    /// A one-line human description of the failed check.
    public var message: String { code.message }

    /// `name: message`, followed by the detail when there is one.
    public var description: String {
        guard let detail else { return "\(name): \(message)" }
        return "\(name): \(message) (\(detail))"
    }

    /// Returns the same error carrying `detail` for logs.
    func with(detail: String) -> WebAuthnError {
        WebAuthnError(code, detail: detail)
    }

    /// Errors are equal when the same check failed; ``detail`` is ignored.
    public static func == (lhs: WebAuthnError, rhs: WebAuthnError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the failed check only, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}
