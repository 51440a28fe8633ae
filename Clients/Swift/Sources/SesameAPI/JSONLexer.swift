/// A strict RFC 8259 lexer over UTF-8 bytes: objects, arrays, strings (with escapes and
/// surrogate pairs), numbers and literals. Every value is validated, also the ones a reader
/// skips, and nothing is built but what a reader asks for. Its readers
/// (`ClientDataJSONReader`, ``JSONObjectReader``) check the text's UTF-8 once before lexing.
@_spi(Sesame) public struct JSONLexer {
    /// The text is not JSON, or not the JSON its reader asked for.
    public struct Malformed: Error {
        public init() {}
    }

    /// The nesting limit, the same as Foundation's JSON parser.
    public static let maximumDepth = 512

    public let bytes: ArraySlice<UInt8>
    public private(set) var position: Int

    /// A lexer at the start of `bytes`, which must be valid UTF-8.
    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    /// Whether `text` can be lexed: raw bytes must be valid UTF-8 (escapes decode to valid UTF-8).
    public static func isValidUTF8(_ text: ArraySlice<UInt8>) -> Bool {
        !text.contains(where: { $0 >= 0x80 }) || String(validating: text, as: UTF8.self) != nil
    }

    /// Whether the whole text was read.
    public var atEnd: Bool { position == bytes.endIndex }

    public func peek() -> UInt8? {
        position < bytes.endIndex ? bytes[position] : nil
    }

    public mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(Malformed) {
        guard peek() == byte else { throw Malformed() }
        position += 1
    }

    /// Reads an object, calling `member` with each key; `member` must consume the value.
    public mutating func readObject(
        _ member: (inout JSONLexer, ArraySlice<UInt8>) throws(Malformed) -> Void
    ) throws(Malformed) {
        try expect(UInt8(ascii: "{"))
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            let key = try readStringBytes()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            try member(&self, key)
            skipWhitespace()
            guard let next = peek() else { throw Malformed() }
            position += 1
            if next == UInt8(ascii: "}") { return }
            guard next == UInt8(ascii: ",") else { throw Malformed() }
        }
    }

    /// Validates and skips one value of any type.
    public mutating func skipValue(depth: Int) throws(Malformed) {
        guard depth <= Self.maximumDepth, let byte = peek() else { throw Malformed() }
        switch byte {
        case UInt8(ascii: "{"):
            try readObject { reader, _ throws(Malformed) in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            try skipArray(depth: depth)
        case UInt8(ascii: "\""):
            _ = try readStringBytes()
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try readBool()
        case UInt8(ascii: "n"):
            try readNull()
        default:
            try skipNumber()
        }
    }

    private mutating func skipArray(depth: Int) throws(Malformed) {
        try expect(UInt8(ascii: "["))
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            try skipValue(depth: depth + 1)
            skipWhitespace()
            guard let next = peek() else { throw Malformed() }
            position += 1
            if next == UInt8(ascii: "]") { return }
            guard next == UInt8(ascii: ",") else { throw Malformed() }
        }
    }

    // MARK: Typed values

    public mutating func readString() throws(Malformed) -> String {
        // The input was checked to be valid UTF-8 and escapes decode to valid UTF-8.
        String(decoding: try readStringBytes(), as: UTF8.self)
    }

    public mutating func readOptionalString() throws(Malformed) -> String? {
        if peek() == UInt8(ascii: "n") {
            try readNull()
            return nil
        }
        return try readString()
    }

    public mutating func readOptionalBool() throws(Malformed) -> Bool? {
        if peek() == UInt8(ascii: "n") {
            try readNull()
            return nil
        }
        return try readBool()
    }

    public mutating func readBool() throws(Malformed) -> Bool {
        if readLiteral("true") { return true }
        if readLiteral("false") { return false }
        throw Malformed()
    }

    public mutating func readNull() throws(Malformed) {
        guard readLiteral("null") else { throw Malformed() }
    }

    private mutating func readLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.endIndex - position >= count else { return false }
        let matches = literal.withUTF8Buffer { bytes[position..<position + count].elementsEqual($0) }
        if matches { position += count }
        return matches
    }

    /// A number's text (`-12.5e3`), for its reader to convert.
    public mutating func readNumber() throws(Malformed) -> ArraySlice<UInt8> {
        let start = position
        try skipNumber()
        return bytes[start..<position]
    }

    private mutating func skipNumber() throws(Malformed) {
        if peek() == UInt8(ascii: "-") { position += 1 }
        if peek() == UInt8(ascii: "0") {
            position += 1
        } else {
            guard let first = peek(), first >= UInt8(ascii: "1"), first <= UInt8(ascii: "9") else { throw Malformed() }
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard skipDigits() > 0 else { throw Malformed() }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard skipDigits() > 0 else { throw Malformed() }
        }
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = position
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
        return position - start
    }

    // MARK: Strings

    /// The decoded UTF-8 bytes of a string. Without escapes (the usual case) this is a slice of
    /// the input; with escapes the bytes are decoded into a new buffer.
    public mutating func readStringBytes() throws(Malformed) -> ArraySlice<UInt8> {
        try expect(UInt8(ascii: "\""))
        let start = position
        while let byte = peek() {
            if byte == UInt8(ascii: "\"") {
                position += 1
                return bytes[start..<position - 1]
            }
            if byte == UInt8(ascii: "\\") { return try readEscapedString(prefix: bytes[start..<position]) }
            guard byte >= 0x20 else { throw Malformed() }
            position += 1
        }
        throw Malformed()
    }

    private mutating func readEscapedString(prefix: ArraySlice<UInt8>) throws(Malformed) -> ArraySlice<UInt8> {
        var output = Array(prefix)
        while let byte = peek() {
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return output[...]
            case UInt8(ascii: "\\"):
                try readEscape(into: &output)
            default:
                guard byte >= 0x20 else { throw Malformed() }
                output.append(byte)
            }
        }
        throw Malformed()
    }

    private mutating func readEscape(into output: inout [UInt8]) throws(Malformed) {
        guard let byte = peek() else { throw Malformed() }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"): output.append(contentsOf: try readUnicodeEscape().utf8)
        default: throw Malformed()
        }
    }

    /// `\uXXXX`, or a surrogate pair `\uD83D\uDE00`; lone surrogates are refused.
    private mutating func readUnicodeEscape() throws(Malformed) -> String {
        let first = try readHex4()
        var scalar = UInt32(first)
        if (0xD800...0xDBFF).contains(first) {
            guard readLiteral("\\u") else { throw Malformed() }
            let second = try readHex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw Malformed() }
            scalar = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw Malformed() }
        return String(Character(unicode))
    }

    private mutating func readHex4() throws(Malformed) -> UInt16 {
        guard bytes.endIndex - position >= 4 else { throw Malformed() }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Malformed()
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }
}
