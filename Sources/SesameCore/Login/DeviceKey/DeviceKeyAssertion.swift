/// A device-key login as it arrives.
public enum DeviceKeyAssertion: Sendable, Equatable {
    /// `POST /oauth/token` with the RFC 7523 JWT-bearer grant: the header's `kid` names the
    /// device credential and `sub` the user.
    case bearer(assertion: String?)
    /// TouchIDAuth's `POST /oauth/ro` form: `iss` names the user, `device` the device (its id
    /// or name), `connection` the user's connection, and `sub` carries the key fingerprint.
    case legacy(idToken: String?, device: String?, connection: String?)

    /// The login method recorded in the audit log.
    var method: LoginMethod {
        switch self {
        case .bearer: .deviceKey
        case .legacy: .deviceKeyLegacy
        }
    }
}
