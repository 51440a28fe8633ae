import Foundation
import SesameAPI

// Codable helpers: binary members travel as base64url strings (padding and the standard
// alphabet are tolerated on input, output is canonical unpadded base64url).
extension KeyedDecodingContainer {
    func decodeBase64URL(forKey key: Key) throws -> [UInt8] {
        let text = try decode(String.self, forKey: key)
        guard let bytes = Base64URL.decodeTolerant(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not base64url")
        }
        return bytes
    }

    func decodeBase64URLIfPresent(forKey key: Key) throws -> [UInt8]? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let bytes = Base64URL.decodeTolerant(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not base64url")
        }
        return bytes
    }
}

extension KeyedEncodingContainer {
    mutating func encodeBase64URL(_ bytes: [UInt8], forKey key: Key) throws {
        try encode(Base64URL.encode(bytes), forKey: key)
    }

    mutating func encodeBase64URLIfPresent(_ bytes: [UInt8]?, forKey key: Key) throws {
        guard let bytes else { return }
        try encode(Base64URL.encode(bytes), forKey: key)
    }
}

/// Decodes a credential from JSON, reporting failures as ``WebAuthnError/malformedCredential``.
func decodeCredential<T: Decodable>(_ type: T.Type, from json: Data) throws(WebAuthnError) -> T {
    do {
        return try JSONDecoder().decode(T.self, from: json)
    } catch {
        throw WebAuthnError.malformedCredential.with(detail: String(describing: error))
    }
}
