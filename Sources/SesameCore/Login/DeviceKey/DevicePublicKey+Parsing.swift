import Foundation
import SesameAPI

extension DevicePublicKey {
    /// Parses the `value` of a device-credential registration: PEM text (`PUBLIC KEY` or
    /// PKCS#1 `RSA PUBLIC KEY`, any line endings, including TouchIDAuth's CR-only ones),
    /// base64 of such PEM (what Lock v1 uploads), or base64 of DER.
    public static func parse(text: String, policy: DeviceKeyPolicy) throws -> DevicePublicKey {
        if text.contains("-----BEGIN") { return try DevicePublicKey(der: try pemBody(text), policy: policy) }
        let compact = text.filter { !$0.isWhitespace }
        guard let decoded = Data(base64Encoded: compact) ?? Base64URL.decode(compact).map({ Data($0) }) else {
            throw SesameError.invalidRequest("value must be a PEM public key, base64 of one, or a JWK object.")
        }
        if let pem = String(data: decoded, encoding: .utf8), pem.contains("-----BEGIN") {
            return try DevicePublicKey(der: try pemBody(pem), policy: policy)
        }
        return try DevicePublicKey(der: [UInt8](decoded), policy: policy)
    }

    /// Parses a public JWK (RFC 7517): `{"kty":"EC","crv":"P-256","x","y"}` or
    /// `{"kty":"RSA","n","e"}`. Private members are refused so a leaked private key is noticed.
    public static func parse(jwk: [String: String], policy: DeviceKeyPolicy) throws -> DevicePublicKey {
        guard jwk["d"] == nil else { throw SesameError.invalidRequest("value is a private key; send the public key.") }
        switch jwk["kty"] {
        case "EC":
            guard jwk["crv"] == "P-256", let x = jwk["x"].flatMap(Base64URL.decode), let y = jwk["y"].flatMap(Base64URL.decode),
                x.count == 32, y.count == 32
            else { throw SesameError.invalidRequest("EC keys must be P-256 with 32-byte x and y.") }
            return try DevicePublicKey(der: [0x04] + x + y, policy: policy)
        case "RSA":
            guard let n = jwk["n"].flatMap(Base64URL.decode), let e = jwk["e"].flatMap(Base64URL.decode), !n.isEmpty, !e.isEmpty
            else { throw SesameError.invalidRequest("RSA keys need base64url n and e.") }
            return try DevicePublicKey(der: DER.rsaPublicKey(modulus: n, exponent: e), policy: policy)
        default:
            throw SesameError.invalidRequest("kty must be EC or RSA.")
        }
    }

    /// The DER inside PEM armour: everything between the BEGIN and END lines, whitespace removed.
    static func pemBody(_ pem: String) throws -> [UInt8] {
        let lines = pem.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
        guard let begin = lines.firstIndex(where: { $0.hasPrefix("-----BEGIN") }),
            let end = lines.lastIndex(where: { $0.hasPrefix("-----END") }), begin < end,
            let der = Data(base64Encoded: lines[(begin + 1)..<end].joined().filter { !$0.isWhitespace })
        else { throw SesameError.invalidRequest("value is not valid PEM.") }
        return [UInt8](der)
    }
}

/// The little DER a JWK needs: PKCS#1 `RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }`.
enum DER {
    static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        tlv(0x30, integer(modulus) + integer(exponent))
    }

    /// A non-negative INTEGER: leading zeros dropped, one added when the top bit is set.
    static func integer(_ bytes: [UInt8]) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.isEmpty || value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return tlv(0x02, value)
    }

    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8] = []
        var count = content.count
        if count < 0x80 {
            length = [UInt8(count)]
        } else {
            while count > 0 { length.insert(UInt8(count & 0xFF), at: 0); count >>= 8 }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + content
    }
}
