/// Who is calling the Management API.
public enum ManagementCaller: Sendable, Equatable {
    /// A management token: may manage every user's credentials.
    case admin(tokenID: String)
    /// A user's own access token: may manage only that user's credentials.
    case user(userID: String, clientID: String)
}

/// What a Management API call does with device credentials; each needs its own scope on a
/// user's access token.
public enum DeviceCredentialAction: String, Sendable {
    case create, read, delete

    /// Auth0's scope for doing this to one's own credentials.
    public var scope: String { "\(rawValue):current_user_device_credentials" }

    /// The management-token scope for doing this to anyone's credentials.
    public var managementScope: ManagementScope {
        switch self {
        case .create: .createDeviceCredentials
        case .read: .readDeviceCredentials
        case .delete: .deleteDeviceCredentials
        }
    }
}

/// `POST /api/v2/device-credentials`, Auth0's fields.
public struct DeviceCredentialRegistration: Sendable, Equatable {
    /// The key as sent: PEM (or base64 of PEM or DER) text, or a JWK object.
    public enum Value: Sendable, Equatable {
        case text(String)
        case jwk([String: String])
    }

    public var deviceName: String?
    /// Must be `public_key`.
    public var type: String?
    public var value: Value?
    public var deviceID: String?
    /// The application the key signs in to; defaults to the caller's token's application.
    public var clientID: String?
    /// The owner; needed with a management token, optional (and must be the caller) otherwise.
    public var userID: String?

    /// Creates a registration.
    public init(
        deviceName: String?, type: String?, value: Value?, deviceID: String?, clientID: String? = nil, userID: String? = nil
    ) {
        self.deviceName = deviceName
        self.type = type
        self.value = value
        self.deviceID = deviceID
        self.clientID = clientID
        self.userID = userID
    }
}

extension SesameError {
    /// 401: no usable credentials for the Management API.
    static let managementUnauthorized = SesameError(
        .unauthorized, "unauthorized",
        "Send Authorization: Bearer with your access token or a management token (sesame admin tokens create).")
    /// 403: a user reaching for someone else's credentials.
    static let notYourCredentials = SesameError(
        .forbidden, .insufficientScope, "An access token may only manage its own user's device credentials.")
    /// 403: a user's token naming another application.
    static let otherApplication = SesameError(
        .forbidden, .insufficientScope, "An access token may only register device keys for its own application.")
    /// 404: no such credential (or not the caller's, which is not revealed).
    static let deviceCredentialNotFound = SesameError(.notFound, .notFound, "The device credential does not exist.")
}
