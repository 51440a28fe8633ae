/// The events Sesame sends to webhooks. Each is the webhook face of an audit event, so
/// whatever is audited (from a login, the CLI or the worker) is sent, once, from one place.
public enum WebhookEventType: String, Sendable, CaseIterable {
    case userCreated = "user.created"
    case userDeleted = "user.deleted"
    case userBlocked = "user.blocked"
    /// An operator changed a user's profile, addresses or metadata (`PATCH /api/v2/users/{id}`).
    case userUpdated = "user.updated"
    case loginSucceeded = "login.succeeded"
    case loginFailed = "login.failed"
    case passkeyRegistered = "passkey.registered"
    case deviceKeyRegistered = "device_key.registered"
    case deliveryFailed = "delivery.failed"
    /// Sent only by `sesame admin webhooks test`, to the endpoint tested.
    case webhookTest = "webhook.test"

    /// The events an endpoint may ask for (all but the test event).
    public static var subscribable: [WebhookEventType] { allCases.filter { $0 != .webhookTest } }

    /// The webhook event an audit event of `type` is, if any.
    public init?(audit type: String) {
        switch AuditEventType(rawValue: type) {
        case .userCreated: self = .userCreated
        case .userDeleted: self = .userDeleted
        case .userBlocked: self = .userBlocked
        case .userUpdated: self = .userUpdated
        case .login, .sessionLogin: self = .loginSucceeded
        case .loginRefused, .otpFailed, .passkeyFailed, .deviceKeyRefused: self = .loginFailed
        case .passkeyRegistered: self = .passkeyRegistered
        case .deviceCredentialRegistered: self = .deviceKeyRegistered
        case .deliveryFailed: self = .deliveryFailed
        default: return nil
        }
    }
}
