import Crypto
import CryptoExtras
public import Foundation
public import JWTKit
import SesameAPI

/// Signs and verifies RS256 JWTs with the server's signing keys and publishes them as a JWKS.
///
/// Of the keys not retired, the one that most recently became active signs; every one of them
/// verifies and is published, so a rotation never invalidates tokens already issued and keys
/// waiting to become active are known to relying parties before they sign anything.
public struct TokenSigner: Sendable {
    private let keys: JWTKeyCollection
    /// The `kid` of the signing key.
    public let currentKID: String
    /// The public keys as a JWKS document (RSA only: auth0-python's verifier breaks on others).
    public let jwks: JWKSDocument
    /// The next instant a key becomes active or is retired, when the signer must be rebuilt.
    public let nextChange: Date?

    /// Loads the signing keys as they stand at `now`.
    /// - Throws: when no key is active at `now` or a key does not parse.
    public init(records: [SigningKeyRecord], at now: Date) async throws {
        let usable = records.filter { !Self.isRetired($0, at: now) }
        guard let current = Self.current(in: usable, at: now) else { throw StorageError.notFound("no active signing key") }
        let collection = JWTKeyCollection()
        var published: [JWKSDocument.Key] = []
        for record in usable {
            let key = try JWTKit.Insecure.RSA.PrivateKey(pem: record.privateKeyPEM)
            await collection.add(
                rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: record.kid),
                serializer: DefaultJWTSerializer(jsonEncoder: DirectJWTEncoder()))
            let primitives = try key.publicKey.getKeyPrimitives()
            published.append(
                .init(kid: record.kid, n: Base64URL.encode(primitives.modulus), e: Base64URL.encode(primitives.publicExponent)))
        }
        self.keys = collection
        self.currentKID = current.kid
        self.jwks = JWKSDocument(keys: published)
        self.nextChange = usable.flatMap { [$0.activeFrom, $0.retiredAt].compactMap { $0 } }.filter { $0 > now }.min()
    }

    /// The key that signs at `now`: of those not retired, the one that became active last.
    public static func current(in records: [SigningKeyRecord], at now: Date) -> SigningKeyRecord? {
        records.filter { !isRetired($0, at: now) && $0.activeFrom <= now }
            .max { ($0.activeFrom, $0.createdAt) < ($1.activeFrom, $1.createdAt) }
    }

    /// Whether `record` was withdrawn by `now`.
    public static func isRetired(_ record: SigningKeyRecord, at now: Date) -> Bool {
        record.retiredAt.map { $0 <= now } ?? false
    }

    /// Signs `payload` with the newest key; the header carries `kid` and `typ` (`JWT`, or
    /// `at+jwt` for access tokens, RFC 9068 §2.1, so one can never pass for an id_token).
    public func sign(_ payload: some JWTPayload, type: String = "JWT") async throws -> String {
        try await keys.sign(payload, kid: JWKIdentifier(string: currentKID), header: ["typ": .string(type)])
    }

    /// Verifies a JWT signed by one of our keys and decodes its payload.
    public func verify<Payload: JWTPayload>(_ token: String, as type: Payload.Type = Payload.self) async throws -> Payload {
        try await keys.verify(token, as: type)
    }

    /// Generates a new RSA-2048 signing key.
    /// - Parameters:
    ///   - now: the creation time recorded with it.
    ///   - activeFrom: when it starts signing; nil means at once.
    public static func generateKey(at now: Date, activeFrom: Date? = nil) throws -> SigningKeyRecord {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        // The kid is derived from the public key, so two instances racing to create the first
        // key can never publish two different keys under one kid. Hex rather than base64url,
        // because a kid that begins with "-" reads as an option on the command line.
        let digest = SHA256.hash(data: key.publicKey.derRepresentation)
        return SigningKeyRecord(
            kid: Hex.encode(digest.prefix(16)), privateKeyPEM: key.pemRepresentation, createdAt: now,
            activeFrom: activeFrom)
    }
}

/// A JSON Web Key Set of RSA signing keys (RFC 7517).
public struct JWKSDocument: Sendable, Codable, Equatable {
    /// One RSA public key.
    public struct Key: Sendable, Codable, Equatable {
        public var kty = "RSA"
        public var use = "sig"
        public var alg = "RS256"
        public var kid: String
        public var n: String
        public var e: String
    }
    public var keys: [Key]
}
