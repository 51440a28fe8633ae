/// Writes a flat JSON object (RFC 8259) of strings, integers and booleans straight into
/// bytes, for small objects made on every request (an opaque access token's payload, an
/// id_token's claims, the token endpoint's answer, the load generator's request bodies)
/// without `JSONEncoder`'s containers, coding paths and boxes. Strings are escaped as
/// `JSONEncoder` escapes them with `.withoutEscapingSlashes`, byte for byte.
public struct JSONObjectWriter {
    private static let controlEscapePrefix = Array("\\u00".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The object so far; ``finish()`` closes it.
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    /// Starts an empty object.
    public init() {}

    /// Adds `"name":"value"`; a nil value adds nothing, as `JSONEncoder` leaves out nil.
    public mutating func add(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        Self.appendString(value, to: &bytes)
    }

    /// Adds `"name":value`; a nil value adds nothing.
    public mutating func add(_ name: String, _ value: Int64?) {
        guard let value else { return }
        key(name)
        bytes += String(value).utf8
    }

    /// Adds `"name":true` or `"name":false`; a nil value adds nothing.
    public mutating func add(_ name: String, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bytes += value ? "true".utf8 : "false".utf8
    }

    /// The object, closed.
    public consuming func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private mutating func key(_ name: String) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        Self.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// `text` as a JSON string: quote and backslash escaped, the control characters that have
    /// one as `\b \t \n \f \r` and the others as `\u00XX`, everything else as its UTF-8.
    /// The runs between escapes are copied whole: an id_token in a token answer is a thousand
    /// bytes, and appending them one at a time cost 70 instructions a byte.
    private static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in utf8.indices where utf8[index] < 0x20 || utf8[index] == 0x22 || utf8[index] == 0x5C {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscaped(utf8[index], to: &bytes)
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendEscaped(_ byte: UInt8, to bytes: inout [UInt8]) {
        switch byte {
        case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
        case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
        case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
        case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
        case 0..<0x20: bytes += Self.controlEscapePrefix + [Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0xF)]]
        default: bytes += [UInt8(ascii: "\\"), byte]
        }
    }
}

/// A value that writes its own JSON object, the one `JSONEncoder` writes for it (with
/// `.sortedKeys` where the type says so), so a hot path can skip `JSONEncoder`.
public protocol DirectJSONEncodable: Encodable {
    /// The value's JSON object; nil when only `JSONEncoder` can write it.
    func directJSON() -> [UInt8]?
}
