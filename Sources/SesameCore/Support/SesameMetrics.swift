import Metrics

/// The domain's metrics, through swift-metrics: whatever backend the process bootstraps
/// (the server's Prometheus registry) records them; without one they cost nothing.
///
/// Labels never carry a person's address, a code or an IP: only methods, results, rule
/// names and channels, so the number of series stays small.
enum SesameMetrics {
    /// A finished login attempt: `success` or `failure`, by method (`otp`, `passkey`, …).
    static func login(method: String, result: String) {
        Counter(label: "sesame_logins_total", dimensions: [("method", method), ("result", result)]).increment()
    }

    /// A one-time code or link stored for sending, by connection and kind (`code`, `link`).
    static func codeIssued(connection: String, kind: String) {
        Counter(label: "sesame_codes_issued_total", dimensions: [("connection", connection), ("kind", kind)]).increment()
    }

    /// A request refused by a rate limit, by rule (`start:ip`, `start:recipient`, …).
    static func rateLimited(key: String) {
        let rule = key.split(separator: ":").prefix(2).joined(separator: ":")
        Counter(label: "sesame_rate_limit_refusals_total", dimensions: [("rule", rule)]).increment()
    }

    /// A send attempt's outcome (`sent`, `retry`, `failed`), by channel.
    static func delivery(channel: String, outcome: String) {
        Counter(label: "sesame_deliveries_total", dimensions: [("channel", channel), ("outcome", outcome)]).increment()
    }

    /// The login method and result an audit event stands for, if it is a login.
    static func login(for type: AuditEventType, detail: String) {
        switch type {
        case .login: login(method: method(in: detail), result: "success")
        case .sessionLogin: login(method: "session", result: "success")
        case .otpFailed: login(method: "otp", result: "failure")
        case .passkeyFailed: login(method: "passkey", result: "failure")
        case .deviceKeyRefused: login(method: "device_key", result: "failure")
        case .loginRefused: login(method: method(in: detail), result: "failure")
        default: break
        }
    }

    /// The login method an audit detail starts with (`otp`, `otp: user is blocked`); only
    /// known methods become labels, so a detail can never add a series.
    private static func method(in detail: String) -> String {
        let word = detail.prefix { $0.isLetter || $0 == "_" || $0 == "-" }
        return LoginMethod(rawValue: String(word))?.rawValue ?? "other"
    }
}
