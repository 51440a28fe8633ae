/// The `cnf` claim of a DPoP-bound JWT access token (RFC 9449 §6.1).
public struct DPoPConfirmation: Codable, Sendable, Equatable {
    /// The JWK SHA-256 thumbprint of the key.
    public var jkt: String

    /// Creates a confirmation of `jkt`.
    public init(jkt: String) { self.jkt = jkt }
}
