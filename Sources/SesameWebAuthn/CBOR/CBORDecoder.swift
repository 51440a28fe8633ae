/// Why CBOR input was refused.
struct CBORError: Error, Equatable, Sendable {
    let reason: String
}

/// Limits that bound the work a hostile input can cause.
struct CBORLimits: Sendable {
    /// Maximum nesting of arrays and maps.
    var maxDepth = 16
    /// Maximum number of entries in one array or map.
    var maxContainerCount = 1024
    /// Maximum total number of data items in one decode call.
    var maxItems = 8192
    /// Maximum input size in bytes.
    var maxInputSize = 1 << 20
}

/// A strict, bounded CBOR decoder (RFC 8949) for attestation objects, COSE keys and extensions.
///
/// Strictness (Documentation.md, "Policy decisions"; CTAP2 canonical form, RFC 8949 §4.2.1):
/// definite lengths only, arguments in their shortest form, valid UTF-8 text, no duplicate
/// map keys, no tags, floats or simple values other than `false`/`true`/`null`. A declared
/// length is never trusted beyond the remaining input. Map key order is *not* enforced:
/// real attestation statements (Feitian, FIDO conformance TPM) use non-canonical order.
struct CBORDecoder {
    var limits = CBORLimits()

    /// Decodes exactly one item that must span the whole input.
    func decode(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> CBORValue {
        let (value, consumed) = try decodePrefix(bytes)
        guard consumed == bytes.count else { throw CBORError(reason: "trailing bytes after the CBOR item") }
        return value
    }

    /// Decodes one item at the start of `bytes` and reports how many bytes it used.
    func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (value: CBORValue, consumed: Int) {
        guard bytes.count <= limits.maxInputSize else { throw CBORError(reason: "input exceeds the size limit") }
        var reader = CBORReader(bytes: bytes, limits: limits)
        let value = try reader.readItem(depth: 0)
        return (value, reader.offset - bytes.startIndex)
    }
}

/// The cursor behind ``CBORDecoder``.
private struct CBORReader {
    let bytes: ArraySlice<UInt8>
    let limits: CBORLimits
    var offset: Int
    var items = 0

    init(bytes: ArraySlice<UInt8>, limits: CBORLimits) {
        self.bytes = bytes
        self.limits = limits
        self.offset = bytes.startIndex
    }

    mutating func readItem(depth: Int) throws(CBORError) -> CBORValue {
        items += 1
        guard items <= limits.maxItems else { throw CBORError(reason: "too many data items") }
        guard depth <= limits.maxDepth else { throw CBORError(reason: "nesting too deep") }
        let initial = try readByte()
        let majorType = initial >> 5
        let additional = initial & 0x1F
        if majorType == 7 { return try readSimple(additional) }
        let argument = try readArgument(additional)
        switch majorType {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2: return .bytes(try readBytes(argument))
        case 3: return .text(try readText(argument))
        case 4: return .array(try readArray(argument, depth: depth))
        case 5: return .map(try readMap(argument, depth: depth))
        default: throw CBORError(reason: "tags are not allowed")
        }
    }

    private mutating func readByte() throws(CBORError) -> UInt8 {
        guard offset < bytes.endIndex else { throw CBORError(reason: "unexpected end of input") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Reads the argument and insists on the shortest encoding (RFC 8949 §4.2.1).
    private mutating func readArgument(_ additional: UInt8) throws(CBORError) -> UInt64 {
        let width: Int
        switch additional {
        case 0..<24: return UInt64(additional)
        case 24: width = 1
        case 25: width = 2
        case 26: width = 4
        case 27: width = 8
        case 31: throw CBORError(reason: "indefinite-length items are not allowed")
        default: throw CBORError(reason: "reserved additional information value")
        }
        var value: UInt64 = 0
        for _ in 0..<width { value = (value << 8) | UInt64(try readByte()) }
        let minimum: UInt64 = width == 1 ? 24 : 1 << (UInt64(width) * 4)
        guard value >= minimum else { throw CBORError(reason: "integer or length not in shortest form") }
        return value
    }

    private mutating func readBytes(_ length: UInt64) throws(CBORError) -> [UInt8] {
        guard length <= UInt64(bytes.endIndex - offset) else { throw CBORError(reason: "length exceeds input") }
        let end = offset + Int(length)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    private mutating func readText(_ length: UInt64) throws(CBORError) -> String {
        let raw = try readBytes(length)
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw CBORError(reason: "text string is not valid UTF-8")
        }
        return text
    }

    private mutating func readArray(_ count: UInt64, depth: Int) throws(CBORError) -> [CBORValue] {
        let count = try checkedCount(count)
        var values: [CBORValue] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try readItem(depth: depth + 1)) }
        return values
    }

    private mutating func readMap(_ count: UInt64, depth: Int) throws(CBORError) -> CBORMap {
        let count = try checkedCount(count)
        var map = CBORMap()
        var seen = Set<CBORValue>()
        for _ in 0..<count {
            let key = try readItem(depth: depth + 1)
            guard seen.insert(key).inserted else { throw CBORError(reason: "duplicate map key") }
            map.entries.append(.init(key: key, value: try readItem(depth: depth + 1)))
        }
        return map
    }

    /// Every item needs at least one byte, so a count beyond the remaining input is a lie.
    private func checkedCount(_ count: UInt64) throws(CBORError) -> Int {
        guard count <= UInt64(limits.maxContainerCount), count <= UInt64(bytes.endIndex - offset) else {
            throw CBORError(reason: "container count exceeds limits or input")
        }
        return Int(count)
    }

    private func readSimple(_ additional: UInt8) throws(CBORError) -> CBORValue {
        switch additional {
        case 20: .bool(false)
        case 21: .bool(true)
        case 22: .null
        default: throw CBORError(reason: "floats, undefined and other simple values are not allowed")
        }
    }
}
