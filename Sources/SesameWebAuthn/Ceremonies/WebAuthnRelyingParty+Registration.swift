public import Foundation

extension WebAuthnRelyingParty {
    /// Verifies a registration ceremony (§7.1), including the attestation statement and,
    /// per ``chainValidation``, its certificate chain.
    ///
    /// The caller must still make sure the credential ID is not registered yet (step 26) and then
    /// store the returned record.
    ///
    /// - Parameters:
    ///   - credential: The browser's `PublicKeyCredential` JSON, decoded.
    ///   - expectedChallenge: The challenge bytes sent in the creation options.
    ///   - verificationTime: "Now" for certificate validity and SafetyNet freshness.
    /// - Returns: The credential record to store and what the attestation established.
    /// - Throws: ``WebAuthnError`` naming the first check that failed.
    public func verifyRegistration(
        credential: RegistrationCredential,
        expectedChallenge: [UInt8],
        verificationTime: Date = Date()
    ) async throws(WebAuthnError) -> VerifiedRegistration {
        try checkCredentialEnvelope(id: credential.id, rawID: credential.rawID, type: credential.type)
        let clientDataHash = try ClientDataChecks(relyingParty: self).verify(
            clientDataJSON: credential.response.clientDataJSON,
            expectedType: "webauthn.create",
            expectedChallenge: expectedChallenge
        )
        let attestation = try AttestationObject(bytes: credential.response.attestationObject)
        let authData = attestation.authenticatorData
        let attested = try checkRegistrationAuthenticatorData(authData)
        let key = try COSEKey(cbor: attested.publicKey)
        // §7.1 step 20: match fmt case-sensitively against the supported formats.
        guard let format = AttestationFormat(rawValue: attestation.format) else {
            throw WebAuthnError.unsupportedAttestationFormat.with(detail: attestation.format)
        }
        try checkRegistrationAlgorithm(key.algorithm, format: format)
        let input = AttestationInput(
            statement: attestation.statement, authenticatorData: authData, attestedCredential: attested,
            credentialKey: key, clientDataHash: clientDataHash, relyingParty: self, verificationTime: verificationTime
        )
        // §7.1 step 21: the format's verification procedure; steps 22-23: trustworthiness.
        let outcome = try format.verifier.verify(input)
        let trust = try await AttestationChainValidator(relyingParty: self, verificationTime: verificationTime)
            .judge(outcome)
        return VerifiedRegistration(
            format: format, credentialID: attested.credentialID, credentialPublicKey: attested.publicKeyBytes,
            credentialAlgorithm: key.algorithm, signCount: authData.signCount, aaguid: UUID(bytes: attested.aaguid),
            flags: authData.flags, attestationType: outcome.type, attestationCertificates: outcome.trustPath,
            attestationTrust: trust, transports: credential.response.transports
        )
    }

    /// §7.1 steps 13-17: rpIdHash, UP, UV, BE/BS and attested credential data (with the
    /// ≤ 1023-byte credential ID enforced by the parser).
    private func checkRegistrationAuthenticatorData(_ authData: AuthenticatorData) throws(WebAuthnError) -> AttestedCredentialData
    {
        try checkRPIDHash(authData)
        if requireUserPresence, !authData.flags.userPresent { throw WebAuthnError.userPresenceRequired }
        if requireUserVerification, !authData.flags.userVerified { throw WebAuthnError.userVerificationRequired }
        try checkBackupFlags(authData.flags)
        // The stored ID is the attested (signed) credential ID. §7.1 does not compare it with
        // rawId, and real fixtures (SimpleWebAuthn, go-webauthn Apple) carry a different rawId.
        guard let attested = authData.attestedCredential else { throw WebAuthnError.attestedCredentialDataMissing }
        return attested
    }

    /// §7.1 step 18: the key's alg must be one the RP offered. RS1 credentials are only
    /// acceptable from TPMs, which cannot produce anything else on older firmware.
    private func checkRegistrationAlgorithm(_ algorithm: COSEAlgorithm, format: AttestationFormat) throws(WebAuthnError) {
        guard supportedAlgorithms.contains(algorithm) else {
            throw WebAuthnError.algorithmNotAllowed.with(detail: "alg \(algorithm.rawValue)")
        }
        if algorithm == .rs1, format != .tpm {
            throw WebAuthnError.unsupportedAlgorithm.with(detail: "RS1 credential outside TPM attestation")
        }
    }
}

extension UUID {
    /// A UUID from 16 big-endian bytes (the AAGUID layout).
    init(bytes: [UInt8]) {
        precondition(bytes.count == 16, "an AAGUID has 16 bytes")
        self.init(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
