/// Base64url (RFC 4648 §5), the one implementation for the whole product: tokens, JOSE and
/// WebAuthn.
///
/// ``decode(_:)`` is strict about the alphabet (what tokens and JOSE fields use);
/// ``decodeTolerant(_:)`` also takes the standard alphabet (`+`, `/`), because old
/// authenticator fixtures and some browsers' polyfills send it, and refusing those would
/// refuse real authenticators' answers, not attacks. Both take `=` padding or none. Encoding
/// always produces unpadded base64url.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, symbol) in alphabet.enumerated() { table[Int(symbol)] = UInt8(index) }
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        return table
    }()

    /// Decodes base64url, with or without `=` padding.
    /// - Returns: The bytes, or `nil` for another alphabet's characters or an impossible length.
    public static func decode(_ text: String) -> [UInt8]? {
        guard !text.utf8.contains(UInt8(ascii: "+")), !text.utf8.contains(UInt8(ascii: "/")) else { return nil }
        return decodeTolerant(text)
    }

    /// Decodes base64url or standard base64, with or without `=` padding.
    /// - Parameter text: The encoded text.
    /// - Returns: The bytes, or `nil` when the text contains other characters or has an impossible length.
    public static func decodeTolerant(_ text: String) -> [UInt8]? {
        var symbols = Array(text.utf8)
        while symbols.last == UInt8(ascii: "=") { symbols.removeLast() }
        // A length of 1 mod 4 cannot come from any byte string; every other length can.
        guard symbols.count % 4 != 1 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(symbols.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            let value = decodeTable[Int(symbol)]
            guard value != 0xFF else { return nil }
            buffer = (buffer << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return output
    }

    /// Encodes bytes as unpadded base64url.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        String(decoding: encodeSymbols(bytes, alphabet: alphabet, pad: false), as: UTF8.self)
    }

    /// Encodes bytes as padded standard base64 (used for the SafetyNet nonce).
    public static func encodeStandard(_ bytes: some Sequence<UInt8>) -> String {
        String(decoding: encodeSymbols(bytes, alphabet: standardAlphabet, pad: true), as: UTF8.self)
    }

    private static func encodeSymbols(_ bytes: some Sequence<UInt8>, alphabet: [UInt8], pad: Bool) -> [UInt8] {
        let input = Array(bytes)
        var output = [UInt8]()
        var index = 0
        while index < input.count {
            let chunk = input[index..<min(index + 3, input.count)]
            var value: UInt32 = 0
            for (offset, byte) in chunk.enumerated() { value |= UInt32(byte) << UInt32(16 - offset * 8) }
            for position in 0..<(chunk.count + 1) {
                output.append(alphabet[Int((value >> UInt32(18 - position * 6)) & 0x3F)])
            }
            if pad { output.append(contentsOf: repeatElement(UInt8(ascii: "="), count: 3 - chunk.count)) }
            index += 3
        }
        return output
    }
}
