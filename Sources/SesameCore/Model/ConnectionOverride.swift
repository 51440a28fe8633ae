/// Connection settings given in configuration. Only the fields set there are applied on
/// start, so settings changed with `sesame admin connections update` survive a restart
/// unless the configuration names them too.
public struct ConnectionOverride: Sendable, Equatable {
    public var name: String
    public var enabled: Bool?
    public var codeLength: Int?
    public var codeLifetime: Int?
    public var maxAttempts: Int?
    public var linkLifetime: Int?
    public var disableSignup: Bool?

    /// Creates an override that changes nothing.
    public init(name: String) {
        self.name = name
    }

    /// Whether the override sets anything.
    public var isEmpty: Bool {
        [enabled, disableSignup].allSatisfy { $0 == nil }
            && [codeLength, codeLifetime, maxAttempts, linkLifetime].allSatisfy { $0 == nil }
    }

    /// `connection` with the set fields replaced.
    public func apply(to connection: Connection) -> Connection {
        var result = connection
        result.enabled = enabled ?? result.enabled
        result.codeLength = codeLength ?? result.codeLength
        result.codeLifetime = codeLifetime ?? result.codeLifetime
        result.maxAttempts = maxAttempts ?? result.maxAttempts
        result.linkLifetime = linkLifetime ?? result.linkLifetime
        result.disableSignup = disableSignup ?? result.disableSignup
        return result
    }
}
