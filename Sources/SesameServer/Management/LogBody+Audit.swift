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

    /// Sesame's audit types a filter names: the filter itself when it is one of Sesame's
    /// event names (`login`), else every type Auth0's code stands for (`fp` → `otp_failed`,
    /// `otp_failure_budget_exhausted`); the filter alone when it is neither.
    public static func auditTypes(matching filter: String) -> [String] {
        if AuditEventType(rawValue: filter) != nil { return [filter] }
        let types = AuditEventType.allCases.map(\.rawValue).filter { code($0) == filter }
        return types.isEmpty ? [filter] : types
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
            .applicationDeleted, .signingKeyRotated, .signingKeyRetired, .userUpdated, .accessControlChanged:
            "sapi"
        default: "w"
        }
    }
}
