/// A minimal CBOR encoder for building test fixtures (definite lengths, shortest arguments).
public indirect enum TestCBOR: Sendable {
    case int(Int)
    case bytes([UInt8])
    case text(String)
    case array([TestCBOR])
    /// Entries in the given order.
    case map([(TestCBOR, TestCBOR)])
    case bool(Bool)

    public var encoded: [UInt8] {
        switch self {
        case .int(let value) where value >= 0: Self.head(0, UInt64(value))
        case .int(let value): Self.head(1, UInt64(-1 - value))
        case .bytes(let bytes): Self.head(2, UInt64(bytes.count)) + bytes
        case .text(let text): Self.head(3, UInt64(text.utf8.count)) + Array(text.utf8)
        case .array(let items): Self.head(4, UInt64(items.count)) + items.flatMap(\.encoded)
        case .map(let entries): Self.head(5, UInt64(entries.count)) + entries.flatMap { $0.0.encoded + $0.1.encoded }
        case .bool(let value): [value ? 0xF5 : 0xF4]
        }
    }

    public static func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
        let type = major << 5
        switch argument {
        case 0..<24: return [type | UInt8(argument)]
        case 24..<256: return [type | 24, UInt8(argument)]
        case 256..<65536: return [type | 25] + bigEndian(argument, count: 2)
        case 65536..<(1 << 32): return [type | 26] + bigEndian(argument, count: 4)
        default: return [type | 27] + bigEndian(argument, count: 8)
        }
    }

    public static func bigEndian(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }
}
