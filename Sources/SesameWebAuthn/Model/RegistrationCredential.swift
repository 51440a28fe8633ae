import Foundation

/// The browser's answer to `navigator.credentials.create()`, in the JSON shape of
/// `PublicKeyCredential.toJSON()` (`RegistrationResponseJSON`, §5.1.8).
public struct RegistrationCredential: Codable, Sendable, Hashable {
    /// `id`: base64url of the credential ID, as the browser sent it.
    public var id: String
    /// `rawId`: the credential ID bytes.
    public var rawID: [UInt8]
    /// `type`: must be `"public-key"`.
    public var type: String
    /// `response`: the attestation response.
    public var response: AuthenticatorAttestationResponse
    /// `authenticatorAttachment`: `"platform"` or `"cross-platform"`, when the browser reports it.
    public var authenticatorAttachment: String?
    /// `clientExtensionResults`, passed through untouched.
    public var clientExtensionResults: [String: JSONValue]?

    /// Creates a credential from its parts.
    public init(
        id: String,
        rawID: [UInt8],
        type: String = "public-key",
        response: AuthenticatorAttestationResponse,
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
        response = try container.decode(AuthenticatorAttestationResponse.self, forKey: .response)
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

/// `AuthenticatorAttestationResponseJSON` (§5.2.1): client data and attestation object.
public struct AuthenticatorAttestationResponse: Codable, Sendable, Hashable {
    /// The raw clientDataJSON bytes (hashed as received).
    public var clientDataJSON: [UInt8]
    /// The CBOR attestation object.
    public var attestationObject: [UInt8]
    /// Transport hints (`usb`, `nfc`, `ble`, `internal`, `hybrid`), stored for later `allowCredentials`.
    public var transports: [String]?

    /// Creates a response from its parts.
    public init(clientDataJSON: [UInt8], attestationObject: [UInt8], transports: [String]? = nil) {
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
    }

    enum CodingKeys: String, CodingKey {
        case clientDataJSON, attestationObject, transports
    }

    /// Decodes the browser JSON shape.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientDataJSON = try container.decodeBase64URL(forKey: .clientDataJSON)
        attestationObject = try container.decodeBase64URL(forKey: .attestationObject)
        transports = try container.decodeIfPresent([String].self, forKey: .transports)
    }

    /// Encodes the browser JSON shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeBase64URL(clientDataJSON, forKey: .clientDataJSON)
        try container.encodeBase64URL(attestationObject, forKey: .attestationObject)
        try container.encodeIfPresent(transports, forKey: .transports)
    }
}
