import Foundation
import SesameCore

/// A `multipart/form-data` body (RFC 7578): each part's name, file name and bytes. Only what
/// Auth0's job uploads send: no nested multiparts, no transfer encodings.
struct MultipartForm {
    /// One field or file.
    struct Part {
        var name: String
        var filename: String?
        var body: Data

        /// The part as UTF-8 text.
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private(set) var parts: [Part] = []

    /// The first part named `name`.
    subscript(name: String) -> Part? { parts.first { $0.name == name } }

    /// Splits `body` at the boundary `contentType` names.
    /// - Throws: 400 when the type is not `multipart/form-data` with a boundary, or the body
    ///   does not follow it.
    init(body: Data, contentType: String?) throws {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data"),
            let boundary = Self.parameter("boundary", of: contentType), !boundary.isEmpty
        else { throw SesameError.invalidRequest("The body must be multipart/form-data.") }
        let delimiter = Data("--\(boundary)".utf8)
        let separator = Data("\r\n--\(boundary)".utf8)
        guard let first = body.range(of: delimiter), body[body.startIndex..<first.lowerBound].allSatisfy(Self.isSpace) else {
            throw Self.malformed
        }
        var cursor = first.upperBound
        while true {
            // After a delimiter: `--` ends the body, a line break starts a part.
            if body[cursor...].starts(with: Data("--".utf8)) { break }
            guard body[cursor...].starts(with: Data("\r\n".utf8)) else { throw Self.malformed }
            cursor += 2
            guard let end = body.range(of: separator, in: cursor..<body.endIndex) else { throw Self.malformed }
            parts.append(try Self.part(body[cursor..<end.lowerBound]))
            cursor = end.upperBound
        }
    }

    private static let malformed = SesameError.invalidRequest("The multipart body does not follow its boundary.")

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x0D || byte == 0x0A || byte == 0x20 || byte == 0x09 }

    /// A part: header lines, an empty line, the bytes.
    private static func part(_ raw: Data) throws -> Part {
        guard let split = raw.range(of: Data("\r\n\r\n".utf8)) else { throw malformed }
        let headers = String(decoding: raw[raw.startIndex..<split.lowerBound], as: UTF8.self)
        let disposition = headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-disposition:") }
        guard let disposition, let name = parameter("name", of: String(disposition)) else { throw malformed }
        return Part(name: name, filename: parameter("filename", of: String(disposition)), body: Data(raw[split.upperBound...]))
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
