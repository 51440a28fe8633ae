import Foundation

/// The browser's answer to `navigator.credentials.create()` (`RegistrationResponseJSON`, §5.1.8).
public typealias RegistrationCredential = PublicKeyCredential<AuthenticatorAttestationResponse>

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
