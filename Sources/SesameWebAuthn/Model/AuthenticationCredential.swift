import Foundation

/// The browser's answer to `navigator.credentials.get()`, in the JSON shape of
/// `PublicKeyCredential.toJSON()` (`AuthenticationResponseJSON`, §5.1.8).
public struct AuthenticationCredential: Codable, Sendable, Hashable {
    /// `id`: base64url of the credential ID, as the browser sent it.
    public var id: String
    /// `rawId`: the credential ID bytes; look the stored credential up by these.
    public var rawID: [UInt8]
    /// `type`: must be `"public-key"`.
    public var type: String
    /// `response`: the assertion response.
    public var response: AuthenticatorAssertionResponse
    /// `authenticatorAttachment`, when the browser reports it.
    public var authenticatorAttachment: String?
    /// `clientExtensionResults`, passed through untouched.
    public var clientExtensionResults: [String: JSONValue]?

    /// Creates a credential from its parts.
    public init(
        id: String,
        rawID: [UInt8],
        type: String = "public-key",
        response: AuthenticatorAssertionResponse,
        authenticatorAttachment: String? = nil,
        clientExtensionResults: [String: JSONValue]? = nil
    ) {
        self.id = id
        self.rawID = rawID
        self.type = type
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
    }

    /// Decodes the browser JSON.
    /// - Throws: ``WebAuthnError/malformedCredential`` when members are missing or not base64url.
    public init(json: Data) throws(WebAuthnError) {
        self = try decodeCredential(Self.self, from: json)
    }

    enum CodingKeys: String, CodingKey {
        case id, rawID = "rawId", type, response, authenticatorAttachment, clientExtensionResults
    }

    /// Decodes the browser JSON shape.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        rawID = try container.decodeBase64URL(forKey: .rawID)
        type = try container.decode(String.self, forKey: .type)
        response = try container.decode(AuthenticatorAssertionResponse.self, forKey: .response)
        authenticatorAttachment = try container.decodeIfPresent(String.self, forKey: .authenticatorAttachment)
        clientExtensionResults = try container.decodeIfPresent([String: JSONValue].self, forKey: .clientExtensionResults)
    }

    /// Encodes the browser JSON shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeBase64URL(rawID, forKey: .rawID)
        try container.encode(type, forKey: .type)
        try container.encode(response, forKey: .response)
        try container.encodeIfPresent(authenticatorAttachment, forKey: .authenticatorAttachment)
        try container.encodeIfPresent(clientExtensionResults, forKey: .clientExtensionResults)
    }
}

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
