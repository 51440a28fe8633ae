import Foundation

/// The members of clientDataJSON (CollectedClientData, §5.8.1) that the RP checks.
/// Unknown members are ignored; the JSON text is never compared to a template.
struct CollectedClientData: Sendable {
    let type: String
    let challenge: String
    let origin: String
    let crossOrigin: Bool?
    let topOrigin: String?
    /// The legacy `tokenBinding.status`, when tokenBinding is an object with a string status.
    let tokenBindingStatus: String?

    /// Parses the raw clientDataJSON bytes (UTF-8, an optional BOM is stripped).
    init(bytes: [UInt8]) throws(WebAuthnError) {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        do {
            let decoded = try JSONDecoder().decode(Wire.self, from: Data(body))
            type = decoded.type
            challenge = decoded.challenge
            origin = decoded.origin
            crossOrigin = decoded.crossOrigin
            topOrigin = decoded.topOrigin
            tokenBindingStatus = decoded.tokenBinding?.status
        } catch {
            throw WebAuthnError.malformedClientData
        }
    }

    private struct Wire: Decodable {
        let type: String
        let challenge: String
        let origin: String
        let crossOrigin: Bool?
        let topOrigin: String?
        let tokenBinding: TokenBinding?

        enum CodingKeys: String, CodingKey {
            case type, challenge, origin, crossOrigin, topOrigin, tokenBinding
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try container.decode(String.self, forKey: .type)
            challenge = try container.decode(String.self, forKey: .challenge)
            origin = try container.decode(String.self, forKey: .origin)
            crossOrigin = try container.decodeIfPresent(Bool.self, forKey: .crossOrigin)
            topOrigin = try container.decodeIfPresent(String.self, forKey: .topOrigin)
            // tokenBinding is legacy; old clients sent odd shapes (even a bare string), which are ignored.
            tokenBinding = try? container.decodeIfPresent(TokenBinding.self, forKey: .tokenBinding)
        }
    }

    private struct TokenBinding: Decodable {
        let status: String?
    }
}
