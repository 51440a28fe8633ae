import Crypto
public import Foundation

/// Seals outbox payloads with AES-GCM under a key derived from the server's HMAC secret.
///
/// A queued message holds a live code or link until it is sent; sealed, a copy of the
/// outbox table alone (a backup, a replica, a support dump) does not sign anyone in. Keys
/// rotate with the HMAC secrets: the newest seals, any opens.
public struct PayloadSeal: Sendable {
    private let keys: HMACKeys

    /// Creates a seal from the HMAC secrets, newest first.
    public init(secrets: [[UInt8]]) {
        keys = HMACKeys(secrets: secrets)
    }

    /// Creates a seal over the shared, reloaded HMAC keys: payloads sealed by an instance that
    /// already uses a new key open on every instance that has reloaded it.
    public init(keys: HMACKeys) {
        self.keys = keys
    }

    /// The AES-GCM key of an HMAC secret.
    static func derive(_ secret: [UInt8]) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: secret), info: Array("sesame outbox payload v1".utf8), outputByteCount: 32)
    }

    /// `plaintext` sealed under the current key: nonce, ciphertext and tag.
    public func seal(_ plaintext: Data) throws -> [UInt8] {
        guard let combined = try AES.GCM.seal(plaintext, using: keys.current.sealKey).combined else {
            throw SesameError(.internalError, .serverError, "Internal error", logDetail: "outbox payload could not be sealed")
        }
        return Array(combined)
    }

    /// The plaintext of a sealed payload; throws when no key opens it (tampered, or sealed
    /// under a secret since removed).
    public func open(_ sealed: [UInt8]) throws -> Data {
        let box = try AES.GCM.SealedBox(combined: sealed)
        for key in keys.all {
            if let plaintext = try? AES.GCM.open(box, using: key.sealKey) { return plaintext }
        }
        throw SesameError(
            .internalError, .serverError, "Internal error", logDetail: "outbox payload could not be opened with any server secret"
        )
    }
}
