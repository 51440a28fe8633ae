/// A stored credential public key, decoded once.
///
/// The `verifyAuthentication` variant that takes COSE_Key bytes decodes them on every call. A server that keeps credential records in
/// memory can decode each key once and pass this value instead, which skips CBOR decoding and
/// public-key validation on every assertion.
///
/// ```swift
/// let key = try CredentialPublicKey(cose: record.publicKey)  // keep it with the record
/// let result = try relyingParty.verifyAuthentication(
///     credential: credential, expectedChallenge: challenge, credentialPublicKey: key,
///     storedSignCount: record.signCount)
/// ```
public struct CredentialPublicKey: Sendable {
    let key: COSEKey

    /// The COSE_Key bytes the key was decoded from.
    public let bytes: [UInt8]

    /// The algorithm the key is bound to (its COSE `alg` member).
    public var algorithm: COSEAlgorithm { key.algorithm }

    /// Decodes and validates a stored COSE_Key.
    /// - Parameter bytes: The COSE_Key bytes (`credentialPublicKey` of a verified registration).
    /// - Throws: ``WebAuthnError/malformedPublicKey`` or ``WebAuthnError/unsupportedAlgorithm``.
    public init(cose bytes: [UInt8]) throws(WebAuthnError) {
        self.key = try COSEKey(bytes: bytes)
        self.bytes = bytes
    }
}
