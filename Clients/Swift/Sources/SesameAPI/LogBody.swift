/// An audit event in Auth0's log shape (`GET /api/v2/logs`, `sesame admin audit list --json`).
public struct LogBody: Codable, Sendable, Equatable {
    /// The event's place in the log.
    public var logID: String
    /// An ISO 8601 instant.
    public var date: String
    /// Auth0's log event code: `s` success login, `f` failed login, `fp` wrong code, `fu`
    /// blocked user, `ssa` silent authentication, `cs` code sent, `cls` link sent, `sdu` user
    /// deleted, `sapi` management change, `fn` failed delivery, `sv` address verified,
    /// `ferrt` refresh token reuse, `slo` logout, `w` other.
    public var type: String
    public var description: String
    public var userID: String?
    public var clientID: String?
    public var ip: String?
    /// `event`: Sesame's own event type (`login`, `otp_failed`, …).
    public var details: [String: String]
    /// How many identical events the entry stands for: repeated refusals of one kind from one
    /// address within a minute are one entry. Absent in bodies from before it existed.
    public var count: Int?

    enum CodingKeys: String, CodingKey {
        case date, type, description, ip, details, count
        case logID = "log_id", userID = "user_id", clientID = "client_id"
    }

    /// Creates a body.
    public init(
        logID: String, date: String, type: String, description: String, userID: String?, clientID: String?, ip: String?,
        details: [String: String], count: Int? = nil
    ) {
        self.logID = logID
        self.date = date
        self.type = type
        self.description = description
        self.userID = userID
        self.clientID = clientID
        self.ip = ip
        self.details = details
        self.count = count
    }
}
