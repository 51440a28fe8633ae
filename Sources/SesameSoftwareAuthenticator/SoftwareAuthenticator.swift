import Crypto
import Foundation
import SesameAPI
public import SesameClientCore

/// A passkey authenticator in software, for tests, headless clients and `sesame login
/// passkey`: ES256 discoverable credentials with a signature counter, the UP and UV flags,
/// `none` attestation, kept in a JSON file readable only by its owner (or in memory).
///
/// It is as strong as the file's protection: a platform authenticator (AuthenticationServices)
/// keeps its keys in hardware, so apps use that and plug it in behind ``PasskeyAuthenticator``.
public actor SoftwareAuthenticator: PasskeyAuthenticator {
    /// One credential the authenticator holds.
    struct Credential: Codable {
        var id: [UInt8]
        var rpID: String
        var userHandle: [UInt8]
        var privateKey: [UInt8]
        var signCount: UInt32
    }

    private let path: String?
    private var credentials: [Credential]

    /// An authenticator whose credentials live in `path` (created 0600 on first use), or only
    /// in memory when `path` is nil.
    public init(path: String? = nil) throws {
        self.path = path
        if let path, let data = FileManager.default.contents(atPath: path) {
            credentials = try JSONDecoder().decode([Credential].self, from: data)
        } else {
            credentials = []
        }
    }

    /// How many credentials it holds.
    public var count: Int { credentials.count }

    public func register(_ request: PasskeyRegistrationRequest) async throws -> PasskeyResponse {
        let key = P256.Signing.PrivateKey()
        let credential = Credential(
            id: Array(SHA256.hash(data: key.publicKey.rawRepresentation).prefix(16)), rpID: request.rpID,
            userHandle: request.userID, privateKey: Array(key.rawRepresentation), signCount: 1)
        let clientData = Self.clientData("webauthn.create", request.challenge, request.origin)
        let raw = key.publicKey.rawRepresentation
        let coseKey = CBOR.map([
            (.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), .bytes(Array(raw.prefix(32)))),
            (.int(-3), .bytes(Array(raw.suffix(32)))),
        ])
        let attested =
            [UInt8](repeating: 0, count: 16) + Self.bigEndian(UInt16(credential.id.count)) + credential.id + coseKey.encoded
        // UP | UV | AT: the person was present and verified, and a credential is attached.
        let authData = Self.authenticatorData(request.rpID, flags: 0x45, counter: credential.signCount) + attested
        let attestation = CBOR.map([
            (.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes(authData)),
        ])
        credentials.removeAll { $0.rpID == request.rpID && $0.userHandle == request.userID }
        credentials.append(credential)
        try save()
        return PasskeyResponse(
            credentialID: credential.id,
            response: [
                "clientDataJSON": Base64URL.encode(clientData), "attestationObject": Base64URL.encode(attestation.encoded),
            ])
    }

    public func authenticate(_ request: PasskeyAuthenticationRequest) async throws -> PasskeyResponse {
        guard let index = credentials.lastIndex(where: { $0.rpID == request.rpID }) else {
            throw SoftwareAuthenticatorError("no passkey for \(request.rpID) here: sign up first")
        }
        credentials[index].signCount += 1
        let credential = credentials[index]
        let clientData = Self.clientData("webauthn.get", request.challenge, request.origin)
        let authData = Self.authenticatorData(request.rpID, flags: 0x05, counter: credential.signCount)
        let key = try P256.Signing.PrivateKey(rawRepresentation: credential.privateKey)
        let signature = try key.signature(for: authData + Array(SHA256.hash(data: clientData))).derRepresentation
        try save()
        return PasskeyResponse(
            credentialID: credential.id,
            response: [
                "clientDataJSON": Base64URL.encode(clientData), "authenticatorData": Base64URL.encode(authData),
                "signature": Base64URL.encode(signature), "userHandle": Base64URL.encode(credential.userHandle),
            ])
    }

    private func save() throws {
        guard let path else { return }
        try PrivateFile.write(try JSONEncoder().encode(credentials), to: path)
    }

    private static func clientData(_ type: String, _ challenge: [UInt8], _ origin: String) -> [UInt8] {
        let object =
            ["type": type, "challenge": Base64URL.encode(challenge), "origin": origin, "crossOrigin": false] as [String: Any]
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    private static func authenticatorData(_ rpID: String, flags: UInt8, counter: UInt32) -> [UInt8] {
        Array(SHA256.hash(data: Array(rpID.utf8))) + [flags] + bigEndian(counter)
    }

    private static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}

/// Why the software authenticator could not answer.
public struct SoftwareAuthenticatorError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// The CBOR an authenticator writes (RFC 8949, CTAP2 canonical form): only what attestation
/// objects and COSE keys use, keys given in canonical order by the caller.
indirect enum CBOR {
    case int(Int)
    case bytes([UInt8])
    case text(String)
    case map([(CBOR, CBOR)])

    var encoded: [UInt8] {
        switch self {
        case .int(let value): value >= 0 ? Self.head(0, UInt64(value)) : Self.head(1, UInt64(-1 - value))
        case .bytes(let bytes): Self.head(2, UInt64(bytes.count)) + bytes
        case .text(let text): Self.head(3, UInt64(text.utf8.count)) + Array(text.utf8)
        case .map(let pairs): Self.head(5, UInt64(pairs.count)) + pairs.flatMap { $0.0.encoded + $0.1.encoded }
        }
    }

    /// A major type and its argument in the shortest form.
    private static func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
        let type = major << 5
        switch argument {
        case 0..<24: return [type | UInt8(argument)]
        case 24..<0x100: return [type | 24, UInt8(argument)]
        case 0x100..<0x1_0000: return [type | 25] + withUnsafeBytes(of: UInt16(argument).bigEndian) { Array($0) }
        case 0x1_0000..<0x1_0000_0000: return [type | 26] + withUnsafeBytes(of: UInt32(argument).bigEndian) { Array($0) }
        default: return [type | 27] + withUnsafeBytes(of: argument.bigEndian) { Array($0) }
        }
    }
}
