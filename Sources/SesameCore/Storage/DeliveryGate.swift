/// Whether a start's message goes out, decided by the recipient's stored account inside the
/// storage operation that queues it, so a start needs no read of its own: never to a blocked
/// user, nor to an unknown one while the connection's signup is off. A suppressed delivery is
/// stored all the same, without its payload, so a start costs the same for every recipient.
public struct DeliveryGate: Sendable, Equatable {
    /// The connection and identifier of the recipient's account.
    public var connection: String
    public var identifier: String
    /// Whether an unknown recipient gets no message (the connection's signup is off).
    public var signupDisabled: Bool

    /// Creates the gate of a start's message.
    public init(connection: String, identifier: String, signupDisabled: Bool) {
        (self.connection, self.identifier, self.signupDisabled) = (connection, identifier, signupDisabled)
    }

    /// Whether the message goes out to `user` (nil: no stored account).
    public func delivers(to user: User?) -> Bool {
        guard let user else { return !signupDisabled }
        return !user.blocked
    }
}
