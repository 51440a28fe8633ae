public import SesameAPI
public import SesameCore

extension LogBody {
    /// An audit event in Auth0's log shape, its type mapped to Auth0's event code.
    public init(_ event: AuditEvent) {
        self.init(
            logID: event.seq.map { String($0) } ?? "", date: ISO8601.string(event.at), type: Self.code(event.type),
            description: event.detail, userID: event.userID, clientID: event.clientID, ip: event.ip,
            details: ["event": event.type], count: event.count)
    }

    /// The first of Sesame's audit types Auth0's `code` stands for (`s` → `login`).
    static func auditType(forCode code: String) -> String? {
        AuditEventType.allCases.first { Self.code($0.rawValue) == code }?.rawValue
    }

    /// Auth0's code for one of Sesame's audit types; `w` (a warning-level event) when
    /// Auth0 has none.
    static func code(_ type: String) -> String {
        switch AuditEventType(rawValue: type) {
        case .login, .userCreated: "s"
        case .sessionLogin: "ssa"
        case .otpFailed, .otpFailureBudgetExhausted: "fp"
        case .loginRefused: "fu"
        case .passkeyFailed, .deviceKeyRefused: "f"
        case .codeSent: "cs"
        case .linkSent: "cls"
        case .userDeleted: "sdu"
        case .addressVerified: "sv"
        case .refreshTokenReuse: "ferrt"
        case .sessionEnded: "slo"
        case .machineToken: "seccft"
        case .refreshTokenRevoked: "srrt"
        case .deliveryFailed, .smsRefused: "fn"
        case .userBlocked, .userUnblocked, .passkeyDeleted, .passkeyDisabled, .passkeyEnabled, .deviceCredentialDeleted,
            .webhookCreated, .webhookDeleted, .templateSet, .templateReset, .applicationCreated, .applicationUpdated,
            .applicationDeleted, .signingKeyRotated, .signingKeyRetired, .userUpdated:
            "sapi"
        default: "w"
        }
    }
}
