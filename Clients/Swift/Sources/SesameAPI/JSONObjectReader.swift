/// Reads a flat JSON object (RFC 8259) of strings, numbers, booleans and nulls, the shape of
/// nearly every request body and of a queued message's content, without `JSONDecoder`'s
/// containers, coding paths and boxes (about 70,000 instructions for a token request's body).
///
/// The text is lexed strictly (``JSONLexer``): what it reads is what `JSONDecoder` reads. It
/// answers nil for anything else, a nested object or array, a repeated key, a text that is not
/// JSON, so that the caller asks `JSONDecoder`, which then accepts or refuses the text with
/// its own errors.
public enum JSONObjectReader {
    /// One member's value.
    public enum Value: Equatable, Sendable {
        case string(String)
        case bool(Bool)
        case null
        /// A number, as its text in the document (`-12.5e3`): its reader chooses the type.
        case number(String)
    }

    /// The members of the object in `text`, or nil when `JSONDecoder` must read it.
    public static func members(_ text: ArraySlice<UInt8>) -> [String: Value]? {
        guard JSONLexer.isValidUTF8(text) else { return nil }
        var lexer = JSONLexer(text)
        var members: [String: Value] = [:]
        do {
            lexer.skipWhitespace()
            try lexer.readObject { lexer, key throws(JSONLexer.Malformed) in
                let value = try value(&lexer)
                // A repeated key: which one `JSONDecoder` keeps is its own business.
                guard members.updateValue(value, forKey: String(decoding: key, as: UTF8.self)) == nil else {
                    throw JSONLexer.Malformed()
                }
            }
            lexer.skipWhitespace()
        } catch {
            return nil
        }
        return lexer.atEnd ? members : nil
    }

    /// The members of the object in `text`, or nil when `JSONDecoder` must read it.
    public static func members(_ text: some Sequence<UInt8>) -> [String: Value]? {
        members(ArraySlice(text))
    }

    private static func value(_ lexer: inout JSONLexer) throws(JSONLexer.Malformed) -> Value {
        switch lexer.peek() {
        case UInt8(ascii: "\""): return .string(try lexer.readString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try lexer.readBool())
        case UInt8(ascii: "n"):
            try lexer.readNull()
            return .null
        case UInt8(ascii: "{"), UInt8(ascii: "["): throw JSONLexer.Malformed()
        default: return .number(String(decoding: try lexer.readNumber(), as: UTF8.self))
        }
    }
}
