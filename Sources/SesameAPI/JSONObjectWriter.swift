/// Writes a flat JSON object (RFC 8259) of strings and integers straight into bytes, for
/// small objects made on every request (an opaque access token's payload, the load
/// generator's request bodies) without `JSONEncoder`'s containers, coding paths and boxes.
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

    /// The object, closed.
    public func finish() -> [UInt8] {
        bytes + [UInt8(ascii: "}")]
    }

    private mutating func key(_ name: String) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        Self.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// `text` as a JSON string: quote and backslash escaped, control characters as `\u00XX`,
    /// everything else as its UTF-8.
    private static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), byte]
            case 0..<0x20: bytes += Self.controlEscapePrefix + [Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0xF)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
