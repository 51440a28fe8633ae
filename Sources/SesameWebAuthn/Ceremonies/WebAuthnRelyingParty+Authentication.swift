import Crypto
import Foundation
import SesameAPI

extension WebAuthnRelyingParty {
    /// Verifies an authentication ceremony (§7.2).
    ///
    /// The caller must already have found the credential record by `credential.rawID`, checked it
    /// against `allowCredentials`, and checked that it belongs to the account (steps 5-6).
    ///
    /// - Parameters:
    ///   - credential: The browser's `PublicKeyCredential` JSON, decoded.
    ///   - expectedChallenge: The challenge bytes sent in the request options.
    ///   - credentialPublicKey: The stored COSE_Key bytes.
    ///   - storedSignCount: The stored signature counter.
    ///   - storedBackupEligible: The stored BE flag, if the record keeps it (step 18).
    /// - Returns: The values to write back to the credential record.
    /// - Throws: ``WebAuthnError`` naming the first check that failed.
    public func verifyAuthentication(
        credential: AuthenticationCredential,
        expectedChallenge: [UInt8],
        credentialPublicKey: [UInt8],
        storedSignCount: UInt32,
        storedBackupEligible: Bool? = nil
    ) throws(WebAuthnError) -> VerifiedAuthentication {
        try verifyAssertion(credential, expectedChallenge, storedSignCount, storedBackupEligible) { () throws(WebAuthnError) in
            try COSEKey(bytes: credentialPublicKey)
        }
    }

    /// Verifies an authentication ceremony (§7.2) with a credential public key decoded earlier.
    ///
    /// The same checks, in the same order, as the variant that takes COSE_Key bytes; only the
    /// decoding of the stored key is skipped.
    ///
    /// - Parameters:
    ///   - credential: The browser's `PublicKeyCredential` JSON, decoded.
    ///   - expectedChallenge: The challenge bytes sent in the request options.
    ///   - credentialPublicKey: The stored key, decoded once with ``CredentialPublicKey/init(cose:)``.
    ///   - storedSignCount: The stored signature counter.
    ///   - storedBackupEligible: The stored BE flag, if the record keeps it (step 18).
    /// - Returns: The values to write back to the credential record.
    /// - Throws: ``WebAuthnError`` naming the first check that failed.
    public func verifyAuthentication(
        credential: AuthenticationCredential,
        expectedChallenge: [UInt8],
        credentialPublicKey: CredentialPublicKey,
        storedSignCount: UInt32,
        storedBackupEligible: Bool? = nil
    ) throws(WebAuthnError) -> VerifiedAuthentication {
        try verifyAssertion(credential, expectedChallenge, storedSignCount, storedBackupEligible) { () throws(WebAuthnError) in
            credentialPublicKey.key
        }
    }

    private func verifyAssertion(
        _ credential: AuthenticationCredential,
        _ expectedChallenge: [UInt8],
        _ storedSignCount: UInt32,
        _ storedBackupEligible: Bool?,
        publicKey: () throws(WebAuthnError) -> COSEKey
    ) throws(WebAuthnError) -> VerifiedAuthentication {
        try checkCredentialEnvelope(id: credential.id, rawID: credential.rawID, type: credential.type)
        let response = credential.response
        let clientDataHash = try ClientDataChecks(relyingParty: self).verify(
            clientDataJSON: response.clientDataJSON,
            expectedType: "webauthn.get",
            expectedChallenge: expectedChallenge
        )
        let authData = try AuthenticatorData(bytes: response.authenticatorData)
        try checkAssertionFlags(authData, storedBackupEligible: storedBackupEligible)
        // Step 21: the signature covers authenticatorData ‖ SHA-256(clientDataJSON).
        let key = try publicKey()
        try checkAssertionAlgorithm(key.algorithm)
        guard key.key.isValidSignature(response.signature, for: authData.raw + clientDataHash, algorithm: key.algorithm)
        else { throw WebAuthnError.invalidSignature }
        try checkSignCount(received: authData.signCount, stored: storedSignCount)
        return VerifiedAuthentication(
            credentialID: credential.rawID,
            newSignCount: authData.signCount,
            flags: authData.flags,
            userHandle: response.userHandle
        )
    }

    /// §7.2 steps 16-19: rpIdHash, UP (always), UV (when required), BE/BS consistency.
    private func checkAssertionFlags(_ authData: AuthenticatorData, storedBackupEligible: Bool?) throws(WebAuthnError) {
        try checkRPIDHash(authData)
        guard authData.flags.userPresent else { throw WebAuthnError.userPresenceRequired }
        if requireUserVerification, !authData.flags.userVerified {
            throw WebAuthnError.userVerificationRequired
        }
        try checkBackupFlags(authData.flags)
        // BE is fixed at creation; a change means a different authenticator or a forged response.
        if let storedBackupEligible, storedBackupEligible != authData.flags.backupEligible {
            throw WebAuthnError.backupEligibilityChanged
        }
    }

    /// RS1 (SHA-1) is accepted only where TPM attestation needs it; a stored RS1 key signs
    /// assertions only if the RP explicitly lists RS1.
    private func checkAssertionAlgorithm(_ algorithm: COSEAlgorithm) throws(WebAuthnError) {
        if algorithm == .rs1, !supportedAlgorithms.contains(.rs1) {
            throw WebAuthnError.unsupportedAlgorithm.with(detail: "RS1 assertions are disabled")
        }
    }

    /// §7.2 step 22. Passkey providers always send 0; when both values are 0 the check is skipped
    /// so synced credentials keep working. Otherwise the counter must strictly increase; anything
    /// else signals a cloned authenticator and fails the ceremony.
    func checkSignCount(received: UInt32, stored: UInt32) throws(WebAuthnError) {
        guard received != 0 || stored != 0 else { return }
        guard received > stored else {
            throw WebAuthnError.signCountNotIncreased.with(detail: "received \(received), stored \(stored)")
        }
    }
}

extension WebAuthnRelyingParty {
    /// §7.1 steps 1-4 / §7.2 steps 1-4: `type` is `public-key` and `id` is base64url(`rawId`).
    /// Decoded bytes are compared: fixtures carry non-canonical encodings of the same ID.
    func checkCredentialEnvelope(id: String, rawID: [UInt8], type: String) throws(WebAuthnError) {
        guard type == "public-key" else { throw WebAuthnError.invalidCredentialType }
        guard Base64URL.decodeTolerant(id) == rawID else { throw WebAuthnError.credentialIDMismatch }
    }

    /// §7.1 step 13 / §7.2 step 15.
    func checkRPIDHash(_ authData: AuthenticatorData) throws(WebAuthnError) {
        guard ConstantTime.equal(authData.rpIDHash, rpIDHash) else { throw WebAuthnError.rpIDHashMismatch }
    }

    static func hash(_ rpID: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(rpID.utf8)))
    }

    /// L3 §7.1 step 16 / §7.2 step 19: BS without BE is invalid.
    func checkBackupFlags(_ flags: AuthenticatorFlags) throws(WebAuthnError) {
        if flags.backedUp, !flags.backupEligible { throw WebAuthnError.backupStateWithoutEligibility }
    }
}
