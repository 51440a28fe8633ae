/// The audit events of a login, one list for each way recording it can turn out.
///
/// The outcome is known only once the user is stored (a first login creates them; another
/// instance may have blocked them a moment before), so the storage picks the list by the user
/// it stored and writes it with the login. Written as data rather than as a function of the
/// user, the choice can be made inside the login's own statement: on PostgreSQL one round
/// trip instead of a transaction's four.
public struct LoginAudit: Sendable {
    /// How a recorded login turned out, from the user as stored after it.
    public enum Outcome: String, Sendable, CaseIterable {
        /// The login created the user (their first).
        case created
        /// An existing user's login.
        case returning
        /// The user is blocked: the login is recorded, then refused.
        case blocked
    }

    /// The events of each outcome in the order they are written. Their `userID` is ignored:
    /// the stored user's ``User/userID`` is written.
    public var events: [Outcome: [AuditEvent]]

    /// Creates the plan from the events of each outcome; a missing outcome writes none.
    public init(events: [Outcome: [AuditEvent]]) {
        self.events = events
    }

    /// The outcome `user`, as stored by the login, stands for. A backend that chooses in SQL
    /// must choose as this does (the storage conformance suite holds each backend to it).
    public static func outcome(of user: User) -> Outcome {
        if user.blocked { return .blocked }
        return user.loginsCount == 1 ? .created : .returning
    }

    /// The events to write for `user`, as stored by the login, with its identifier.
    public func events(for user: User) -> [AuditEvent] {
        (events[Self.outcome(of: user)] ?? []).map { event in
            var event = event
            event.userID = user.userID
            return event
        }
    }
}
