import Foundation
import JWTKit
import SesameAPI

/// The JSON encoder JWTKit signs with: a JWT's header and the claims that write themselves
/// (``DirectJSONEncodable``) go straight into bytes; anything else goes to JWTKit's own
/// `JSONEncoder`. `JSONEncoder` was 2 % of a refresh grant's CPU (docs/performance.md).
struct DirectJWTEncoder: JWTJSONEncoder {
    private let fallback: any JWTJSONEncoder = .defaultForJWT

    func encode<T: Encodable>(_ value: T) throws -> Data {
        if let direct = value as? any DirectJSONEncodable, let json = direct.directJSON() { return Data(json) }
        if let header = value as? JWTHeader, let json = Self.json(of: header) { return Data(json) }
        return try fallback.encode(value)
    }

    /// A header of string fields (ours: `alg`, `kid`, `typ`) in sorted order; nil for any
    /// other kind of field.
    static func json(of header: JWTHeader) -> [UInt8]? {
        var json = JSONObjectWriter()
        for (name, field) in header.fields.sorted(by: { $0.key < $1.key }) {
            guard case .string(let text) = field else { return nil }
            json.add(name, text)
        }
        return json.finish()
    }
}
