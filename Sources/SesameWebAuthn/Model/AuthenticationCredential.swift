import Foundation

/// The browser's answer to `navigator.credentials.get()` (`AuthenticationResponseJSON`, §5.1.9).
public typealias AuthenticationCredential = PublicKeyCredential<AuthenticatorAssertionResponse>

/// `AuthenticatorAssertionResponseJSON` (§5.2.2).
public struct AuthenticatorAssertionResponse: Codable, Sendable, Hashable {
    /// The raw clientDataJSON bytes (hashed as received).
    public var clientDataJSON: [UInt8]
    /// The raw authenticator data (signed as received).
    public var authenticatorData: [UInt8]
    /// The assertion signature.
    public var signature: [UInt8]
    /// The user handle a discoverable credential returns; `nil` when absent, null or empty.
    public var userHandle: [UInt8]?

    /// Creates a response from its parts.
    public init(clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]? = nil) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }

    enum CodingKeys: String, CodingKey {
        case clientDataJSON, authenticatorData, signature, userHandle
    }

    /// Decodes the browser JSON shape.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientDataJSON = try container.decodeBase64URL(forKey: .clientDataJSON)
        authenticatorData = try container.decodeBase64URL(forKey: .authenticatorData)
        signature = try container.decodeBase64URL(forKey: .signature)
        let handle = try container.decodeBase64URLIfPresent(forKey: .userHandle)
        userHandle = handle?.isEmpty == true ? nil : handle
    }

    /// Encodes the browser JSON shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeBase64URL(clientDataJSON, forKey: .clientDataJSON)
        try container.encodeBase64URL(authenticatorData, forKey: .authenticatorData)
        try container.encodeBase64URL(signature, forKey: .signature)
        try container.encodeBase64URLIfPresent(userHandle, forKey: .userHandle)
    }
}
