import Crypto
import CryptoExtras
import Foundation
import JWTKit

/// Signs and verifies RS256 JWTs with the server's signing keys and publishes them as a JWKS.
///
/// The newest key signs; every stored key verifies and is published, so a rotation never
/// invalidates tokens already issued.
public struct TokenSigner: Sendable {
    private let keys: JWTKeyCollection
    /// The `kid` of the signing key.
    public let currentKID: String
    /// The public keys as a JWKS document (RSA only: auth0-python's verifier breaks on others).
    public let jwks: JWKSDocument

    /// Loads signing keys, newest first.
    /// - Throws: when `records` is empty or a key does not parse.
    public init(records: [SigningKeyRecord]) async throws {
        guard let newest = records.first else { throw StorageError.notFound("no signing key") }
        let collection = JWTKeyCollection()
        var published: [JWKSDocument.Key] = []
        for record in records {
            let key = try JWTKit.Insecure.RSA.PrivateKey(pem: record.privateKeyPEM)
            await collection.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: record.kid))
            let primitives = try key.publicKey.getKeyPrimitives()
            published.append(
                .init(kid: record.kid, n: Base64URL.encode(primitives.modulus), e: Base64URL.encode(primitives.publicExponent)))
        }
        self.keys = collection
        self.currentKID = newest.kid
        self.jwks = JWKSDocument(keys: published)
    }

    /// Signs `payload` with the newest key; the header carries `kid` and `typ: JWT`.
    public func sign(_ payload: some JWTPayload) async throws -> String {
        try await keys.sign(payload, kid: JWKIdentifier(string: currentKID), header: ["typ": "JWT"])
    }

    /// Verifies a JWT signed by one of our keys and decodes its payload.
    public func verify<Payload: JWTPayload>(_ token: String, as type: Payload.Type = Payload.self) async throws -> Payload {
        try await keys.verify(token, as: type)
    }

    /// Generates a new RSA-2048 signing key.
    /// - Parameter now: the creation time recorded with it.
    public static func generateKey(at now: Date) throws -> SigningKeyRecord {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        // The kid is derived from the public key, so two instances racing to create the first
        // key can never publish two different keys under one kid.
        let digest = SHA256.hash(data: key.publicKey.derRepresentation)
        return SigningKeyRecord(kid: Base64URL.encode(digest.prefix(16)), privateKeyPEM: key.pemRepresentation, createdAt: now)
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
