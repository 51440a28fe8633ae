/// One reply from an SMTP server: a three-digit code and one or more lines of text.
package struct SMTPReply: Sendable, Equatable {
    /// The reply code, such as 250 or 550.
    package var code: Int
    /// The text of each line, without the code and separator.
    package var lines: [String]

    /// Creates a reply.
    package init(code: Int, lines: [String]) {
        self.code = code
        self.lines = lines
    }

    /// 2xx and 3xx: the server accepted the command (3xx asks for more).
    package var isPositive: Bool { (200..<400).contains(code) }

    /// The code and first line, as quoted in error messages.
    package var summary: String {
        let text = lines.first ?? ""
        return text.isEmpty ? "\(code)" : "\(code) \(text)"
    }
}

/// Turns the bytes a server sends into ``SMTPReply`` values (RFC 5321 §4.2).
///
/// Multi-line replies use `250-` on every line but the last, which uses `250 `.
/// Feed bytes with ``append(_:)`` as they arrive and take replies with ``nextReply()``;
/// it needs no socket, so it is tested directly.
package struct SMTPReplyParser: Sendable {
    /// Malformed input, or more than the limits allow.
    package struct ParseError: Error, Sendable, Equatable {
        /// What was wrong.
        package var reason: String
    }

    /// RFC 5321 allows 512 octets per reply line; leave room for chatty servers, but bound memory.
    package static let maximumLineLength = 4096
    /// Bounds a multi-line reply so a hostile server cannot grow it forever.
    package static let maximumLines = 128

    private var buffer: [UInt8] = []
    private var pendingCode: Int?
    private var pendingLines: [String] = []

    /// Creates a parser with nothing read yet.
    package init() {}

    /// True when bytes are waiting that do not yet form a complete reply.
    /// Checked before STARTTLS: plaintext sent after the `220` could be an injection attack.
    package var hasBufferedInput: Bool { !buffer.isEmpty || pendingCode != nil }

    /// Adds bytes read from the connection.
    package mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Returns the next complete reply, or nil when more bytes are needed.
    package mutating func nextReply() throws(ParseError) -> SMTPReply? {
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(buffer[..<newline])
            buffer.removeSubrange(...newline)
            // CRLF is the standard; a bare LF is tolerated because some servers send it.
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if let reply = try consume(line: line) { return reply }
        }
        if buffer.count > Self.maximumLineLength {
            throw ParseError(reason: "reply line longer than \(Self.maximumLineLength) bytes")
        }
        return nil
    }

    private mutating func consume(line: [UInt8]) throws(ParseError) -> SMTPReply? {
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard line.count >= 3, line.count <= Self.maximumLineLength, line[0...2].allSatisfy(digits.contains) else {
            throw ParseError(reason: "malformed reply line \"\(String(decoding: line.prefix(64), as: UTF8.self))\"")
        }
        let code = line[0...2].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard (200...599).contains(code) else { throw ParseError(reason: "reply code \(code) out of range") }
        // "250" alone on a line is a valid last line with no text.
        let separator = line.count > 3 ? line[3] : UInt8(ascii: " ")
        guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else {
            throw ParseError(reason: "malformed reply separator after \(code)")
        }
        if let pendingCode, pendingCode != code {
            throw ParseError(reason: "reply code changed from \(pendingCode) to \(code) inside a multi-line reply")
        }
        pendingLines.append(line.count > 4 ? String(decoding: line[4...], as: UTF8.self) : "")
        if separator == UInt8(ascii: "-") {
            guard pendingLines.count < Self.maximumLines else {
                throw ParseError(reason: "multi-line reply longer than \(Self.maximumLines) lines")
            }
            pendingCode = code
            return nil
        }
        defer { pendingCode = nil; pendingLines = [] }
        return SMTPReply(code: code, lines: pendingLines)
    }
}
