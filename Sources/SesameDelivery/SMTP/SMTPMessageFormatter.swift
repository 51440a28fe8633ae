import Foundation
import SesameCore

/// The email that ``SMTPMessageFormatter`` turns into an RFC 5322 message.
struct SMTPEmail: Sendable, Equatable {
    var fromAddress: String
    var fromName: String?
    var toAddress: String
    var subject: String?
    var body: String
    /// The HTML alternative: with it the message is multipart/alternative (text, then HTML).
    var html: String? = nil
    var date: Date
    var messageID: String
}

/// Builds the bytes sent after `DATA`: headers, MIME framing, dot-stuffed body, final `.`.
///
/// Pure functions over strings and bytes, so every rule is unit-tested without a server.
enum SMTPMessageFormatter {
    /// How the body is represented on the wire (RFC 2045 §6).
    enum TransferEncoding: String, Sendable {
        case sevenBit = "7bit"
        case eightBit = "8bit"
        case quotedPrintable = "quoted-printable"
    }

    /// RFC 5322 caps a line at 998 octets; longer body lines must be quoted-printable.
    static let maximumLineLength = 998

    /// The full `DATA` payload, ending with `CRLF.CRLF`. `allow8bit` is true when the server
    /// advertised `8BITMIME`; otherwise non-ASCII bodies are quoted-printable.
    static func render(_ email: SMTPEmail, allow8bit: Bool) throws(DeliveryError) -> [UInt8] {
        var headers = [
            "Date: \(rfc5322Date(email.date))",
            "From: \(try mailbox(address: email.fromAddress, name: email.fromName))",
            "To: \(try mailbox(address: email.toAddress, name: nil))",
        ]
        if let subject = email.subject {
            try refuseLineBreaks(subject, field: "subject")
            headers.append("Subject: \(encodeHeaderText(subject))")
        }
        headers += ["Message-ID: \(email.messageID)", "MIME-Version: 1.0"]
        var lines: [[UInt8]]
        if let html = email.html {
            let boundary = boundary(for: email)
            headers.append("Content-Type: multipart/alternative; boundary=\"\(boundary)\"")
            lines = [Array("This is a multi-part message in MIME format.".utf8)]
            for (type, text) in [("text/plain", email.body), ("text/html", html)] {
                lines.append(Array("--\(boundary)".utf8))
                lines += part(type, text, allow8bit: allow8bit, separateHeaders: true)
            }
            lines.append(Array("--\(boundary)--".utf8))
        } else {
            lines = part("text/plain", email.body, allow8bit: allow8bit, separateHeaders: false)
            headers += lines.prefix(2).map { String(decoding: $0, as: UTF8.self) }
            lines.removeFirst(2)
        }
        // RFC 3834: tells auto-responders (vacation replies) not to answer a sign-in code.
        headers.append("Auto-Submitted: auto-generated")
        var payload = Array(headers.joined(separator: "\r\n").utf8) + Array("\r\n\r\n".utf8)
        for line in lines {
            payload += dotStuff(line) + [13, 10]
        }
        payload += Array(".\r\n".utf8)
        return payload
    }

    /// One MIME part: its `Content-Type` and `Content-Transfer-Encoding` lines, then (after a
    /// blank line, when `separateHeaders`) its body lines, encoded as lightly as they allow.
    private static func part(_ type: String, _ text: String, allow8bit: Bool, separateHeaders: Bool) -> [[UInt8]] {
        let lines = splitLines(Array(text.utf8))
        let encoding = transferEncoding(for: lines, allow8bit: allow8bit)
        let headers = ["Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: \(encoding.rawValue)"]
        let body = encoding == .quotedPrintable ? lines.flatMap(quotedPrintable) : lines
        return headers.map { Array($0.utf8) } + (separateHeaders ? [[]] : []) + body
    }

    /// A multipart boundary that no line of either part contains (RFC 2046 §5.1.1).
    private static func boundary(for email: SMTPEmail) -> String {
        var boundary = "=_sesame_" + String(email.messageID.filter { $0.isLetter || $0.isNumber }.prefix(40))
        while email.body.contains(boundary) || email.html?.contains(boundary) == true { boundary += "_" }
        return boundary
    }

    /// Splits text on CRLF, CR or LF, so the wire always gets CRLF (bare LF is forbidden in SMTP).
    static func splitLines(_ bytes: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 13 || byte == 10 {
                lines.append(current)
                current = []
                if byte == 13, index + 1 < bytes.count, bytes[index + 1] == 10 { index += 1 }
            } else {
                current.append(byte)
            }
            index += 1
        }
        // A trailing newline ends the last line rather than starting an empty one.
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }

    /// RFC 5321 §4.5.2: a line starting with "." gets a second one, so it cannot end the data.
    static func dotStuff(_ line: [UInt8]) -> [UInt8] {
        line.first == UInt8(ascii: ".") ? [UInt8(ascii: ".")] + line : line
    }

    /// Picks the lightest encoding that keeps every line legal for this server.
    static func transferEncoding(for lines: [[UInt8]], allow8bit: Bool) -> TransferEncoding {
        let fits = lines.allSatisfy { $0.count <= maximumLineLength }
        let ascii = lines.allSatisfy { $0.allSatisfy { $0 < 128 && $0 != 0 } }
        if fits && ascii { return .sevenBit }
        if fits && allow8bit && !lines.contains(where: { $0.contains(0) }) { return .eightBit }
        return .quotedPrintable
    }

    /// Quoted-printable for one line (RFC 2045 §6.7): lines of at most 76 characters,
    /// soft breaks ending in "=", and trailing blanks encoded so transports cannot strip them.
    static func quotedPrintable(_ line: [UInt8]) -> [[UInt8]] {
        var output: [[UInt8]] = []
        var current: [UInt8] = []
        for (offset, byte) in line.enumerated() {
            let isLast = offset == line.count - 1
            let literal =
                (33...126).contains(byte) && byte != UInt8(ascii: "=")
                || ((byte == 32 || byte == 9) && !isLast)
            let token = literal ? [byte] : Array("=\(hex(byte))".utf8)
            // 75 leaves room for the soft-break "=" within the 76-character limit.
            if current.count + token.count > (isLast ? 76 : 75) {
                output.append(current + [UInt8(ascii: "=")])
                current = []
            }
            current += token
        }
        output.append(current)
        return output
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    /// Header text as is when it is plain printable ASCII, else RFC 2047 encoded-words
    /// (`=?UTF-8?B?…?=`), each at most 75 characters, folded onto continuation lines.
    static func encodeHeaderText(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy { (32...126).contains($0.value) || $0 == "\t" }
        if plain && text.utf8.count <= 900 { return text }
        // 45 bytes encode to 60 base64 characters: 12 for "=?UTF-8?B?" and "?=" make 72.
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > 45 {
                words.append(encodedWord(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(encodedWord(chunk)) }
        return words.joined(separator: "\r\n ")
    }

    private static func encodedWord(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?\(Data(bytes).base64EncodedString())?="
    }

    /// `"Name" <address>` or `<address>`, refusing anything that could smuggle in a header.
    static func mailbox(address: String, name: String?) throws(DeliveryError) -> String {
        try validateAddress(address)
        guard let name, !name.isEmpty else { return "<\(address)>" }
        try refuseLineBreaks(name, field: "display name")
        let plain = name.unicodeScalars.allSatisfy { (32...126).contains($0.value) }
        if !plain { return "\(encodeHeaderText(name)) <\(address)>" }
        let quoted = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"\(quoted)\" <\(address)>"
    }

    /// Accepts `local@domain` in printable ASCII with nothing that could break out of
    /// `<…>` in `RCPT TO`/`To:`; non-ASCII addresses would need SMTPUTF8, which is not offered.
    static func validateAddress(_ address: String) throws(DeliveryError) {
        try refuseLineBreaks(address, field: "address")
        let forbidden: Set<Unicode.Scalar> = ["<", ">", " ", "\t", ","]
        guard address.unicodeScalars.allSatisfy({ (33...126).contains($0.value) && !forbidden.contains($0) }),
            let at = address.lastIndex(of: "@"), at != address.startIndex, address.index(after: at) != address.endIndex
        else { throw DeliveryError(message: "Invalid email address \"\(address)\"", permanent: true) }
    }

    /// CR or LF in a header value would start a new header: refuse rather than strip.
    static func refuseLineBreaks(_ value: String, field: String) throws(DeliveryError) {
        if value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\u{0}" }) {
            throw DeliveryError(message: "Line breaks are not allowed in the email \(field)", permanent: true)
        }
    }

    /// RFC 5322 §3.3 date in UTC, e.g. `Tue, 01 Jul 2025 12:00:00 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
