import Foundation
import SesameAPI

/// A device's compact JWS, split and decoded but not yet trusted: nothing in it counts until
/// the signature has been checked against the registered key.
struct DeviceJWT: Sendable {
    struct Header: Decodable, Sendable {
        var alg: String?
        var kid: String?

        /// The header in `bytes`, nil when it is not one.
        static func decode(_ bytes: [UInt8]) -> Header? {
            // A flat object through the fast reader; anything else as `JSONDecoder` reads it.
            if let members = JSONObjectReader.members(bytes), let alg = members.optionalString("alg"),
                let kid = members.optionalString("kid")
            {
                return Header(alg: alg, kid: kid)
            }
            return try? JSONDecoder().decode(Header.self, from: Data(bytes))
        }
    }

    let header: Header
    let claims: DeviceJWTClaims
    /// `base64url(header) "." base64url(payload)`, the bytes the signature covers.
    let signingInput: [UInt8]
    let signature: [UInt8]

    /// Assertions are a few hundred bytes; anything near this is not one.
    static let maxLength = 8192

    /// Splits and decodes `token`.
    /// - Throws: `invalid_grant` when it is not a three-part JWS with JSON header and claims.
    static func parse(_ token: String) throws -> DeviceJWT {
        // Split on the UTF-8 dots: splitting the String by Character walked grapheme clusters,
        // about 1 % of a device-key login (docs/performance.md).
        let utf8 = token.utf8
        guard utf8.count <= maxLength, let first = utf8.firstIndex(of: 0x2E),
            let second = utf8[utf8.index(after: first)...].firstIndex(of: 0x2E),
            !utf8[utf8.index(after: second)...].contains(0x2E)
        else { throw DeviceKeyRefusal(.malformed) }
        let parts = [utf8[..<first], utf8[utf8.index(after: first)..<second], utf8[utf8.index(after: second)...]]
            .map { String(Substring($0)) }
        guard let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let header = Header.decode(headerBytes), let claims = DeviceJWTClaims.decode(payloadBytes)
        else { throw DeviceKeyRefusal(.malformed) }
        return DeviceJWT(
            header: header, claims: claims, signingInput: Array(utf8[..<second]),
            signature: signature)
    }
}

/// The claims device-key login reads. Numeric dates may be integers or decimals (RFC 7519
/// §2); `aud` may be a string or an array.
struct DeviceJWTClaims: Decodable, Sendable {
    var iss: String?
    var sub: String?
    var aud: [String]
    var iat: Int64?
    var exp: Int64?
    var jti: String?
    var nonce: String?

    enum CodingKeys: String, CodingKey { case iss, sub, aud, iat, exp, jti, nonce }

    /// The claims in `bytes`, nil when they are not a JSON object of these claims.
    ///
    /// A flat object (an `aud` that is one string) is read by ``JSONObjectReader``: with
    /// `JSONDecoder`, decoding the claims and the header was about 1 % of a device-key login
    /// (docs/performance.md). Anything else, an `aud` array or a member of another type, goes
    /// to `JSONDecoder`, which accepts or refuses it as it always did.
    static func decode(_ bytes: [UInt8]) -> DeviceJWTClaims? {
        if let members = JSONObjectReader.members(bytes), let claims = DeviceJWTClaims(members) { return claims }
        return try? JSONDecoder().decode(DeviceJWTClaims.self, from: Data(bytes))
    }

    /// Nil when a member is of a type `JSONDecoder` would refuse or read otherwise.
    init?(_ members: [String: JSONObjectReader.Value]) {
        guard let iss = members.optionalString("iss"), let sub = members.optionalString("sub"),
            let aud = members.optionalString("aud"), let jti = members.optionalString("jti"),
            let nonce = members.optionalString("nonce"), let iat = Self.numericDate(members["iat"]),
            let exp = Self.numericDate(members["exp"])
        else { return nil }
        (self.iss, self.sub, self.aud, self.jti, self.nonce) = (iss, sub, aud.map { [$0] } ?? [], jti, nonce)
        (self.iat, self.exp) = (iat, exp)
    }

    /// `.some(nil)` when absent or null; an integer of up to 15 digits as itself; nil for
    /// anything else, which `JSONDecoder` then reads: its rules for fractions and exponents
    /// (it refuses `0e5` and an underflow that `Double(_:)` reads as 0) are its own.
    private static func numericDate(_ value: JSONObjectReader.Value?) -> Int64?? {
        switch value {
        case nil, .null?: return .some(nil)
        case .number(let text)?:
            // The lexer hands over only JSON's number grammar, of which `Int64` takes exactly
            // the plain integers.
            guard let number = Int64(text), number.magnitude < 1_000_000_000_000_000 else { return nil }
            return .some(number)
        default: return nil
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decodeIfPresent(String.self, forKey: .iss)
        sub = try container.decodeIfPresent(String.self, forKey: .sub)
        if let single = try? container.decodeIfPresent(String.self, forKey: .aud) {
            aud = [single]
        } else {
            aud = try container.decodeIfPresent([String].self, forKey: .aud) ?? []
        }
        iat = try Self.numericDate(container, .iat)
        exp = try Self.numericDate(container, .exp)
        jti = try container.decodeIfPresent(String.self, forKey: .jti)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
    }

    private static func numericDate(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Int64? {
        guard let value = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
        // Out-of-range values would trap on conversion; they are refused as malformed.
        guard value.isFinite, abs(value) < 1e15 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "date out of range")
        }
        return Int64(value.rounded(.down))
    }
}
