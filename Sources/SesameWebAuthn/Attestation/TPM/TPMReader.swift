/// A big-endian cursor over TPM 2.0 marshalled structures (TPM 2.0 Part 2).
struct TPMReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func bytes(_ count: Int) throws(WebAuthnError) -> [UInt8] {
        guard count >= 0, count <= bytes.count - offset else { throw Self.truncated }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func uint8() throws(WebAuthnError) -> UInt8 {
        try bytes(1)[0]
    }

    mutating func uint16() throws(WebAuthnError) -> UInt16 {
        try bytes(2).reduce(0) { ($0 << 8) | UInt16($1) }
    }

    mutating func uint32() throws(WebAuthnError) -> UInt32 {
        try bytes(4).reduce(0) { ($0 << 8) | UInt32($1) }
    }

    mutating func uint64() throws(WebAuthnError) -> UInt64 {
        try bytes(8).reduce(0) { ($0 << 8) | UInt64($1) }
    }

    /// A TPM2B_*: a 16-bit size followed by that many bytes.
    mutating func sized() throws(WebAuthnError) -> [UInt8] {
        try bytes(Int(try uint16()))
    }

    func expectEnd(_ structure: String) throws(WebAuthnError) {
        guard isAtEnd else {
            throw WebAuthnError.tpmStructureInvalid.with(detail: "trailing bytes after \(structure)")
        }
    }

    private static let truncated = WebAuthnError.tpmStructureInvalid.with(detail: "structure truncated")
}
