@_spi(Sesame) import SesameAPI

/// A strict RFC 8259 reader for clientDataJSON that extracts only the members the RP checks.
///
/// It accepts exactly the JSON texts a conforming parser accepts (one top-level object, valid
/// UTF-8, no trailing content, nesting up to ``JSONLexer/maximumDepth``), validates every skipped value, and
/// builds no intermediate tree, which makes the authentication path several times cheaper than
/// Foundation's `JSONDecoder`. A member the RP checks that appears twice is refused, so no
/// reader can see a different `challenge` or `origin` than this one (§5.8.1.2 forbids duplicates).
enum ClientDataJSONReader {
    /// The members of CollectedClientData the RP checks (§5.8.1), as found.
    struct Members {
        var type: String?
        var challenge: String?
        var origin: String?
        var crossOrigin: Bool?
        var topOrigin: String?
        var tokenBindingStatus: String?
    }

    typealias Malformed = JSONLexer.Malformed

    /// Reads a complete JSON text whose top level must be an object.
    /// - Throws: ``Malformed`` for anything that is not such a JSON text, or when a checked member
    ///   has the wrong type or appears twice.
    static func read(_ body: ArraySlice<UInt8>) throws(Malformed) -> Members {
        guard JSONLexer.isValidUTF8(body) else { throw Malformed() }
        var lexer = JSONLexer(body)
        lexer.skipWhitespace()
        let members = try readClientData(&lexer)
        lexer.skipWhitespace()
        guard lexer.atEnd else { throw Malformed() }
        return members
    }

    // MARK: Top level

    private static func readClientData(_ lexer: inout JSONLexer) throws(Malformed) -> Members {
        var members = Members()
        var seen: UInt8 = 0
        try lexer.readObject { reader, key throws(Malformed) in
            // `status` is a member of tokenBinding only; at the top level it is an unknown member.
            guard let known = Key(key), known != .status else { return try reader.skipValue(depth: 1) }
            guard seen & known.bit == 0 else { throw Malformed() }
            seen |= known.bit
            switch known {
            case .type: members.type = try reader.readString()
            case .challenge: members.challenge = try reader.readString()
            case .origin: members.origin = try reader.readString()
            case .crossOrigin: members.crossOrigin = try reader.readOptionalBool()
            case .topOrigin: members.topOrigin = try reader.readOptionalString()
            case .tokenBinding, .status: members.tokenBindingStatus = try readTokenBindingStatus(&reader)
            }
        }
        return members
    }

    /// Legacy `tokenBinding`: its `status` when it is an object with a string status. Other shapes
    /// (old clients sent a bare string) carry no status, but must still be valid JSON.
    private static func readTokenBindingStatus(_ lexer: inout JSONLexer) throws(Malformed) -> String? {
        guard lexer.peek() == UInt8(ascii: "{") else {
            try lexer.skipValue(depth: 1)
            return nil
        }
        var status: String?
        var statusIsString = true
        var seenStatus = false
        try lexer.readObject { reader, key throws(Malformed) in
            guard Key(key) == .status else { return try reader.skipValue(depth: 2) }
            guard !seenStatus else { throw Malformed() }
            seenStatus = true
            if reader.peek() == UInt8(ascii: "\"") {
                status = try reader.readString()
            } else {
                statusIsString = reader.peek() == UInt8(ascii: "n")
                try reader.skipValue(depth: 2)
            }
        }
        return statusIsString ? status : nil
    }

    /// The member names the reader looks for.
    private enum Key: UInt8 {
        case type, challenge, origin, crossOrigin, topOrigin, tokenBinding, status

        /// A bit per member, to detect repeats without hashing.
        var bit: UInt8 { 1 << rawValue }

        init?(_ name: ArraySlice<UInt8>) {
            switch name.count {
            case 4 where name.elementsEqual("type".utf8): self = .type
            case 6 where name.elementsEqual("origin".utf8): self = .origin
            case 6 where name.elementsEqual("status".utf8): self = .status
            case 9 where name.elementsEqual("challenge".utf8): self = .challenge
            case 9 where name.elementsEqual("topOrigin".utf8): self = .topOrigin
            case 11 where name.elementsEqual("crossOrigin".utf8): self = .crossOrigin
            case 12 where name.elementsEqual("tokenBinding".utf8): self = .tokenBinding
            default: return nil
            }
        }
    }
}
