import Foundation
import SesameCore

/// A `multipart/form-data` body (RFC 7578) read as it arrives: each part's name and file name,
/// then its bytes a piece at a time, so that a large file is never held whole by the reader.
/// Only what Auth0's job uploads send: no nested multiparts, no transfer encodings.
struct MultipartReader {
    /// What a piece of the body holds, in order.
    enum Event {
        /// A part starts.
        case part(name: String, filename: String?)
        /// Bytes of the current part.
        case bytes(ArraySlice<UInt8>)
    }

    private enum State { case preamble, afterDelimiter, headers, body, epilogue }

    /// The most a preamble or a part's header lines may take.
    static let maxHeaderSize = 16 * 1024

    private let delimiter: [UInt8]
    private let separator: [UInt8]
    private var state = State.preamble
    /// Bytes received and not yet handed on: at most a piece and a separator's length.
    private var buffer: [UInt8] = []

    /// A reader of the boundary `contentType` names.
    /// - Throws: 400 when the type is not `multipart/form-data` with a boundary.
    init(contentType: String?) throws {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data"),
            let boundary = Self.parameter("boundary", of: contentType), !boundary.isEmpty, boundary.utf8.count <= 200
        else { throw SesameError.invalidRequest("The body must be multipart/form-data.") }
        delimiter = Array("--\(boundary)".utf8)
        separator = Array("\r\n--\(boundary)".utf8)
    }

    /// Reads the next piece of the body, telling `handle` what it completes.
    /// - Throws: 400 when the body does not follow its boundary, or what `handle` throws.
    mutating func feed(_ bytes: some Collection<UInt8>, _ handle: (Event) throws -> Void) throws {
        buffer.append(contentsOf: bytes)
        while try advance(handle) {}
    }

    /// Ends the body.
    /// - Throws: 400 when the closing delimiter never came.
    func finish() throws {
        guard state == .epilogue else { throw Self.malformed }
    }

    /// Takes one step through the buffer; false when it needs more bytes.
    private mutating func advance(_ handle: (Event) throws -> Void) throws -> Bool {
        switch state {
        case .preamble:
            guard let start = Self.find(delimiter, in: buffer) else {
                guard buffer.count <= Self.maxHeaderSize else { throw Self.malformed }
                return false
            }
            guard buffer[..<start].allSatisfy(Self.isSpace) else { throw Self.malformed }
            consume(start + delimiter.count, next: .afterDelimiter)
        case .afterDelimiter:
            // After a delimiter: `--` ends the body, a line break starts a part.
            guard buffer.count >= 2 else { return false }
            if buffer.starts(with: [0x2D, 0x2D]) {
                (state, buffer) = (.epilogue, [])
                return false
            }
            guard buffer.starts(with: [0x0D, 0x0A]) else { throw Self.malformed }
            consume(2, next: .headers)
        case .headers:
            guard let end = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: buffer) else {
                guard buffer.count <= Self.maxHeaderSize else { throw Self.malformed }
                return false
            }
            try handle(try Self.part(headers: buffer[..<end]))
            consume(end + 4, next: .body)
        case .body:
            guard let end = Self.find(separator, in: buffer) else {
                // All but what could be the start of a separator is the part's.
                let safe = buffer.count - (separator.count - 1)
                if safe > 0 {
                    try handle(.bytes(buffer[..<safe]))
                    buffer.removeFirst(safe)
                }
                return false
            }
            if end > 0 { try handle(.bytes(buffer[..<end])) }
            consume(end + separator.count, next: .afterDelimiter)
        case .epilogue:
            buffer = []
            return false
        }
        return true
    }

    private mutating func consume(_ count: Int, next: State) {
        buffer.removeFirst(count)
        state = next
    }

    private static let malformed = SesameError.invalidRequest("The multipart body does not follow its boundary.")

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x0D || byte == 0x0A || byte == 0x20 || byte == 0x09 }

    /// Where `pattern` first starts in `bytes`.
    private static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        var index = 0
        while index <= bytes.count - pattern.count {
            guard let candidate = bytes[index...(bytes.count - pattern.count)].firstIndex(of: first) else { return nil }
            if bytes[candidate..<(candidate + pattern.count)].elementsEqual(pattern) { return candidate }
            index = candidate + 1
        }
        return nil
    }

    /// A part's start from its header lines.
    private static func part(headers raw: ArraySlice<UInt8>) throws -> Event {
        let headers = String(decoding: raw, as: UTF8.self)
        let disposition = headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-disposition:") }
        guard let disposition, let name = parameter("name", of: String(disposition)) else { throw malformed }
        return .part(name: name, filename: parameter("filename", of: String(disposition)))
    }

    /// The value of `name=` in a header's parameters, unquoted.
    static func parameter(_ name: String, of header: String) -> String? {
        for item in header.split(separator: ";").dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == name else { continue }
            var value = pair[1]
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }
}
