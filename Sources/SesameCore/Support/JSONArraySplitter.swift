/// Splits a JSON array that arrives in pieces into its elements' bytes, one element at a time,
/// so that a reader holds one element and the piece it is reading, never the whole array.
///
/// It checks only the array's frame: where each element starts and ends (brackets, strings
/// and their escapes), the commas between elements, and that only white space (and a UTF-8
/// byte order mark) surrounds the array. Each element's content is left to a JSON decoder.
/// Faults and elements' starts are placed by line and column (1-based, columns in bytes).
public struct JSONArraySplitter: Sendable {
    /// A place in the input.
    public struct Position: Sendable, Equatable {
        public var line = 1
        public var column = 1
    }

    /// A fault in the array's frame, and where it is.
    public struct Failure: Error, Sendable, Equatable {
        public var position: Position
        public var reason: String
    }

    private enum State: Sendable, Equatable {
        case start, byteOrderMark(Int), open, afterComma, nested, string, escape, scalar, afterElement, closed
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    private var state = State.start
    /// Open brackets in the element being read.
    private var depth = 0
    private var element: [UInt8] = []
    private var elementStart = Position()
    /// Where the next byte is.
    private var position = Position()
    /// The longest element taken, so that one huge element cannot take the memory a stream saves.
    public let maxElementSize: Int
    /// How many elements have been handed out.
    public private(set) var count = 0

    /// Creates a splitter that refuses elements over `maxElementSize` bytes.
    public init(maxElementSize: Int = .max) {
        self.maxElementSize = maxElementSize
    }

    /// Whether the array has been closed (only white space may follow).
    public var isClosed: Bool { state == .closed }

    /// Reads `bytes`, handing each element they complete to `element` with where it starts.
    /// - Throws: ``Failure`` at the first fault in the frame, or what `element` throws.
    public mutating func feed(
        _ bytes: some Sequence<UInt8>, element handle: ([UInt8], Position) throws -> Void
    ) throws {
        for byte in bytes {
            try step(byte, handle)
            if byte == 0x0A {
                (position.line, position.column) = (position.line + 1, 1)
            } else {
                position.column += 1
            }
        }
    }

    /// Ends the input.
    /// - Throws: ``Failure`` when the array was not closed.
    public func finish() throws {
        switch state {
        case .closed: return
        case .start, .byteOrderMark: throw failure("the file must be a JSON array")
        case .string, .escape: throw failure("a string is not closed", at: elementStart)
        case .nested, .scalar: throw failure("the file ends inside a value", at: elementStart)
        case .open, .afterComma, .afterElement: throw failure("the file ends before the array is closed")
        }
    }

    private mutating func step(_ byte: UInt8, _ handle: ([UInt8], Position) throws -> Void) throws {
        switch state {
        case .start:
            if byte == Self.byteOrderMark[0], position == Position() {
                state = .byteOrderMark(1)
            } else if byte == UInt8(ascii: "[") {
                state = .open
            } else if !Self.isSpace(byte) {
                throw failure("the file must be a JSON array")
            }
        case .byteOrderMark(let index):
            guard byte == Self.byteOrderMark[index] else { throw failure("the file must be a JSON array") }
            state = index == 2 ? .start : .byteOrderMark(index + 1)
        case .open, .afterComma:
            try begin(byte)
        case .nested:
            try append(byte)
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { try end(handle) }
            case UInt8(ascii: "\""): state = .string
            default: break
            }
        case .string:
            try append(byte)
            if byte == UInt8(ascii: "\\") {
                state = .escape
            } else if byte == UInt8(ascii: "\"") {
                if depth == 0 { try end(handle) } else { state = .nested }
            }
        case .escape:
            try append(byte)
            state = .string
        case .scalar:
            guard Self.isSpace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") else { return try append(byte) }
            try end(handle)
            try step(byte, handle)
        case .afterElement:
            switch byte {
            case UInt8(ascii: ","): state = .afterComma
            case UInt8(ascii: "]"): state = .closed
            default: guard Self.isSpace(byte) else { throw failure("expected , or ] after a value") }
            }
        case .closed:
            guard Self.isSpace(byte) else { throw failure("nothing may follow the array") }
        }
    }

    /// The first byte after `[` or a comma: white space, the closing bracket of an empty
    /// array, or an element's first byte.
    private mutating func begin(_ byte: UInt8) throws {
        guard !Self.isSpace(byte) else { return }
        if byte == UInt8(ascii: "]") {
            guard state == .open else { throw failure("expected a value after ,") }
            state = .closed
            return
        }
        elementStart = position
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["): (state, depth) = (.nested, 1)
        case UInt8(ascii: "\""): (state, depth) = (.string, 0)
        case UInt8(ascii: "}"), UInt8(ascii: ","): throw failure("expected a value")
        default: state = .scalar
        }
        try append(byte)
    }

    private mutating func append(_ byte: UInt8) throws {
        guard element.count < maxElementSize else {
            throw failure("a value is over \(maxElementSize) bytes", at: elementStart)
        }
        element.append(byte)
    }

    private mutating func end(_ handle: ([UInt8], Position) throws -> Void) throws {
        state = .afterElement
        count += 1
        try handle(element, elementStart)
        element.removeAll(keepingCapacity: true)
    }

    private func failure(_ reason: String, at place: Position? = nil) -> Failure {
        Failure(position: place ?? position, reason: reason)
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
}
