import Crypto
import Foundation
import SesameAPI

/// The key that seals a database's secrets at rest. It is never stored in the database:
/// the operator keeps it in a file, a systemd credential or the environment, so a copy of the
/// database alone (a backup, a replica, a stolen disk) holds no usable signing key, HMAC key
/// or client secret.
public struct MasterKey: Sendable {
    let key: SymmetricKey
    /// A short fingerprint that names the key in messages and in the database, so a wrong
    /// key is told apart from a missing one without revealing anything about it.
    public let id: String

    /// Reads a key as written in a key file: 32 bytes in base64 (standard or URL-safe) or in
    /// hex, surrounding whitespace ignored. Nil for anything else.
    public init?(encoded: String) {
        let text = encoded.trimmingWhitespaceAndNewlines()
        let bytes = Self.hexBytes(text) ?? Base64URL.decodeTolerant(text)
        guard let bytes, bytes.count == 32 else { return nil }
        self.init(bytes: bytes)
    }

    init(bytes: [UInt8]) {
        key = SymmetricKey(data: bytes)
        let digest = SHA256.hash(data: Array("sesame master key id v1".utf8) + bytes)
        id = digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// A new random key and its encoding for a key file.
    public static func generate(random: any RandomSource) -> (key: MasterKey, encoded: String) {
        let bytes = random.bytes(32)
        return (MasterKey(bytes: bytes), Data(bytes).base64EncodedString())
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        guard text.count == 64 else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}

/// Envelope encryption of the secrets a database holds: each value is sealed with AES-GCM
/// under a random data key, and the data key is stored wrapped (itself sealed) under the
/// ``MasterKey``. Rotating the master key rewraps the one data key instead of rewriting
/// every secret, so it takes no downtime.
///
/// Each value is bound to where it is stored (its `context`, such as
/// `signing_keys.private_key_pem`), so a sealed value copied into another column does not open.
public struct SecretSeal: Sendable {
    private let dataKey: SymmetricKey

    /// What begins a sealed text value; plaintext never does (PEM starts with `-----`, secrets
    /// are base64 or alphanumeric).
    static let textPrefix = "sealed:v1:"
    /// What begins a sealed binary value.
    static let bytesPrefix: [UInt8] = Array("SSv1".utf8)

    /// A new data key, wrapped under `master` for storage, and the seal that uses it.
    public static func create(under master: MasterKey, random: any RandomSource) throws -> (SecretSeal, wrapped: [UInt8]) {
        let bytes = random.bytes(32)
        return (SecretSeal(dataKey: SymmetricKey(data: bytes)), try wrap(bytes, under: master))
    }

    /// The seal whose data key `wrapped` holds.
    /// - Throws: ``SealError`` when `master` does not open it (a wrong key, or a damaged row).
    public static func unwrap(_ wrapped: [UInt8], under master: MasterKey, storedKeyID: String) throws -> SecretSeal {
        do {
            let box = try AES.GCM.SealedBox(combined: wrapped)
            let bytes = try AES.GCM.open(box, using: master.key, authenticating: wrapContext)
            return SecretSeal(dataKey: SymmetricKey(data: bytes))
        } catch {
            throw SealError.wrongMasterKey(expected: storedKeyID, given: master.id)
        }
    }

    /// The data key wrapped under another master key (rotation).
    public func rewrapped(under master: MasterKey) throws -> [UInt8] {
        try Self.wrap(dataKey.withUnsafeBytes { Array($0) }, under: master)
    }

    private static let wrapContext = Array("sesame data key v1".utf8)

    private static func wrap(_ dataKey: [UInt8], under master: MasterKey) throws -> [UInt8] {
        try combined(AES.GCM.seal(dataKey, using: master.key, authenticating: wrapContext))
    }

    /// `plaintext` sealed for the column `context`.
    public func seal(_ plaintext: [UInt8], context: String) throws -> [UInt8] {
        Self.bytesPrefix + (try Self.combined(AES.GCM.seal(plaintext, using: dataKey, authenticating: Array(context.utf8))))
    }

    /// The plaintext of a value ``seal(_:context:)`` made for the same `context`.
    /// - Throws: ``SealError/damaged(_:)`` when it does not open (tampered, moved, or another key).
    public func open(_ sealed: [UInt8], context: String) throws -> [UInt8] {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed.dropFirst(Self.bytesPrefix.count))
            return Array(try AES.GCM.open(box, using: dataKey, authenticating: Array(context.utf8)))
        } catch {
            throw SealError.damaged(context)
        }
    }

    /// `plaintext` sealed for a text column: the prefix and the sealed bytes in base64.
    public func sealText(_ plaintext: String, context: String) throws -> String {
        Self.textPrefix + Data(try seal(Array(plaintext.utf8), context: context)).base64EncodedString()
    }

    /// The plaintext of a value ``sealText(_:context:)`` made for the same `context`.
    public func openText(_ sealed: String, context: String) throws -> String {
        guard let bytes = Data(base64Encoded: String(sealed.dropFirst(Self.textPrefix.count))),
            let text = String(bytes: try open(Array(bytes), context: context), encoding: .utf8)
        else { throw SealError.damaged(context) }
        return text
    }

    /// Whether a stored text value is sealed.
    public static func isSealed(_ text: String) -> Bool { text.hasPrefix(textPrefix) }

    /// Whether a stored binary value is sealed.
    public static func isSealed(_ bytes: [UInt8]) -> Bool { bytes.starts(with: bytesPrefix) }

    private static func combined(_ box: AES.GCM.SealedBox) throws -> [UInt8] {
        guard let combined = box.combined else { throw SealError.damaged("a value to seal") }
        return Array(combined)
    }
}

/// Why sealed secrets could not be opened. The messages are for the operator starting the
/// server, so they say what to do.
public struct SealError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable { case missingMasterKey, wrongMasterKey, damaged }
    private let code: Code
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// The database is sealed and no master key was given.
    public static func missingMasterKey(expected: String) -> SealError {
        .init(
            .missingMasterKey,
            "The database's secrets are sealed under master key \(expected), and no master key was given. "
                + "Give it with SESAME_MASTER_KEY_FILE (a file holding the key), a systemd credential named "
                + "sesame-master-key, or SESAME_MASTER_KEY.")
    }

    /// The given master key is not the one the database is sealed under.
    public static func wrongMasterKey(expected: String, given: String) -> SealError {
        .init(
            .wrongMasterKey,
            "The master key given (\(given)) does not open this database's secrets, which are sealed under master key "
                + "\(expected).")
    }

    /// A sealed value did not open: it was changed, or moved from another column.
    public static func damaged(_ context: String) -> SealError {
        .init(.damaged, "A sealed value (\(context)) does not open under this database's key; it was changed or moved.")
    }
}
