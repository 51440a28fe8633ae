public import Foundation
public import SesameAPI

/// A `PublicKeyCredential` in the JSON shape of `toJSON()` (§5.1.8, §5.1.9): the members both
/// ceremonies share, around the ceremony's own `response`.
public struct PublicKeyCredential<Response: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    /// `id`: base64url of the credential ID, as the browser sent it.
    public var id: String
    /// `rawId`: the credential ID bytes; look the stored credential up by these.
    public var rawID: [UInt8]
    /// `type`: must be `"public-key"`.
    public var type: String
    /// `response`: the attestation response (registration) or assertion response (login).
    public var response: Response
    /// `authenticatorAttachment`: `"platform"` or `"cross-platform"`, when the browser reports it.
    public var authenticatorAttachment: String?
    /// `clientExtensionResults`, passed through untouched.
    public var clientExtensionResults: [String: JSONValue]?

    /// Creates a credential from its parts.
    public init(
        id: String,
        rawID: [UInt8],
        type: String = "public-key",
        response: Response,
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
        response = try container.decode(Response.self, forKey: .response)
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
