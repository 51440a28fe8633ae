import Crypto
public import Foundation

/// Seals outbox payloads with AES-GCM under a key derived from the server's HMAC secret.
///
/// A queued message holds a live code or link until it is sent; sealed, a copy of the
/// outbox table alone (a backup, a replica, a support dump) does not sign anyone in. Keys
/// rotate with the HMAC secrets: the newest seals, any opens.
public struct PayloadSeal: Sendable {
    private let keys: [SymmetricKey]

    /// Creates a seal from the HMAC secrets, newest first.
    public init(secrets: [[UInt8]]) {
        precondition(!secrets.isEmpty, "PayloadSeal needs at least one secret")
        keys = secrets.map { secret in
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: secret), info: Array("sesame outbox payload v1".utf8), outputByteCount: 32)
        }
    }

    /// `plaintext` sealed under the newest key: nonce, ciphertext and tag.
    public func seal(_ plaintext: Data) throws -> [UInt8] {
        guard let combined = try AES.GCM.seal(plaintext, using: keys[0]).combined else {
            throw SesameError(.internalError, .serverError, "Internal error", logDetail: "outbox payload could not be sealed")
        }
        return Array(combined)
    }

    /// The plaintext of a sealed payload; throws when no key opens it (tampered, or sealed
    /// under a secret since removed).
    public func open(_ sealed: [UInt8]) throws -> Data {
        let box = try AES.GCM.SealedBox(combined: sealed)
        for key in keys {
            if let plaintext = try? AES.GCM.open(box, using: key) { return plaintext }
        }
        throw SesameError(
            .internalError, .serverError, "Internal error", logDetail: "outbox payload could not be opened with any server secret"
        )
    }
}
