import Foundation

/// How a connection delivers its secrets.
public enum ConnectionStrategy: String, Sendable, Codable {
    case email, sms
}

/// A passwordless connection and its one-time-code policy.
public struct Connection: Sendable, Codable, Equatable {
    /// `email` or `sms`; also the `realm` in token requests.
    public var name: String
    public var strategy: ConnectionStrategy
    public var enabled: Bool
    /// Digits in a one-time code (Auth0: 6).
    public var codeLength: Int
    /// Seconds a code stays valid (Auth0: 180).
    public var codeLifetime: Int
    /// Failed attempts after which a code is dead (Auth0: 3).
    public var maxAttempts: Int
    /// Seconds a magic link stays valid (15 minutes).
    public var linkLifetime: Int
    /// When true only existing users may sign in.
    public var disableSignup: Bool
    /// Stored passkey policy; read it through ``passkeyPolicy``.
    public var passkeys: PasskeyPolicy?

    /// Creates a connection with the security defaults docs/design.md explains.
    public init(
        name: String, strategy: ConnectionStrategy, enabled: Bool = true, codeLength: Int = 6,
        codeLifetime: Int = 180, maxAttempts: Int = 3, linkLifetime: Int = 900, disableSignup: Bool = false
    ) {
        self.name = name
        self.strategy = strategy
        self.enabled = enabled
        self.codeLength = codeLength
        self.codeLifetime = codeLifetime
        self.maxAttempts = maxAttempts
        self.linkLifetime = linkLifetime
        self.disableSignup = disableSignup
    }

    /// The shortest code issued: fewer digits make guessing within the attempt and failure
    /// budgets too likely. A connection stored with fewer still gets this many.
    public static let minimumCodeLength = 6

    /// The problems with this policy, empty when it is usable.
    public func problems() -> [String] {
        var found: [String] = []
        if !(Self.minimumCodeLength...10).contains(codeLength) {
            found.append("connection \(name): code_length must be \(Self.minimumCodeLength)…10")
        }
        if !(30...3600).contains(codeLifetime) { found.append("connection \(name): code_lifetime must be 30…3600 s") }
        if !(1...10).contains(maxAttempts) { found.append("connection \(name): max_attempts must be 1…10") }
        if !(60...86400).contains(linkLifetime) { found.append("connection \(name): link_lifetime must be 60…86400 s") }
        return found
    }
}

extension Connection {
    /// The passkey policy; connections stored before passkeys existed get the defaults.
    public var passkeyPolicy: PasskeyPolicy {
        get { passkeys ?? PasskeyPolicy() }
        set { passkeys = newValue }
    }
}
