import Foundation

/// `application/x-www-form-urlencoded`, as Twilio's API expects.
enum FormEncoding {
    /// Joins `name=value` pairs in the given order with `&`.
    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
    }

    /// Keeps only unreserved characters (RFC 3986 §2.3) and escapes every other UTF-8 byte.
    /// The `+` of an E.164 number must become `%2B`: a bare `+` would decode as a space.
    static func percentEncode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += String(format: "%%%02X", byte)
            }
        }
        return output
    }

    /// `Basic base64(user:password)` (RFC 7617).
    static func basicAuthorization(user: String, password: String) -> String {
        "Basic \(Data("\(user):\(password)".utf8).base64EncodedString())"
    }
}
