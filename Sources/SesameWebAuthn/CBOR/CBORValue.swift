/// A decoded CBOR data item (RFC 8949), limited to the types WebAuthn uses.
///
/// Tags, floats, `undefined` and other simple values are rejected by ``CBORDecoder``;
/// negative integers keep their encoded argument so that the full range `-2^64...-1` fits.
enum CBORValue: Hashable, Sendable {
    case unsigned(UInt64)
    /// The value `-1 - argument`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBORValue])
    case map(CBORMap)
    case bool(Bool)
    case null

    /// The value as a signed integer when it is an integer that fits in `Int`.
    var intValue: Int? {
        switch self {
        case .unsigned(let value): value <= UInt64(Int.max) ? Int(value) : nil
        case .negative(let argument): argument <= UInt64(Int.max) ? -1 - Int(argument) : nil
        default: nil
        }
    }

    var bytesValue: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }

    var textValue: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    var arrayValue: [CBORValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    var mapValue: CBORMap? {
        if case .map(let map) = self { return map }
        return nil
    }

    /// Builds an integer value.
    static func int(_ value: Int) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }
}

/// A CBOR map that keeps the encoded entry order (needed for nothing but diagnostics) and
/// guarantees unique keys (the decoder rejects duplicates).
struct CBORMap: Hashable, Sendable {
    struct Entry: Hashable, Sendable {
        var key: CBORValue
        var value: CBORValue
    }

    var entries: [Entry]

    init(_ entries: [Entry] = []) {
        self.entries = entries
    }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    subscript(key: CBORValue) -> CBORValue? {
        entries.first { $0.key == key }?.value
    }

    subscript(text key: String) -> CBORValue? {
        self[.text(key)]
    }

    subscript(int key: Int) -> CBORValue? {
        self[.int(key)]
    }
}
