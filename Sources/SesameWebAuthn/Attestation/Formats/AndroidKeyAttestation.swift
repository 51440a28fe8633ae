import X509

/// §8.4 `android-key`: `{alg, sig, x5c}` with the Android key attestation extension on the leaf.
enum AndroidKeyAttestation: AttestationVerifier {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        let algorithm = try input.statement.statementAlgorithm()
        let signature = try input.statement.statementBytes("sig")
        let certificates = try AttestationCertificates.parse(input.statement)
        let leaf = certificates[0]
        // Step 2: the leaf key signs authenticatorData ‖ clientDataHash.
        guard try VerificationKey(certificate: leaf).isValidSignature(signature, for: input.signedData, algorithm: algorithm)
        else { throw WebAuthnError.attestationSignatureInvalid }
        // Step 3: the leaf key is the credential key.
        guard leaf.hasPublicKey(of: input.credentialKey) else { throw WebAuthnError.attestationPublicKeyMismatch }
        // Step 4: the KeyDescription extension.
        guard let keyExtension = leaf.extensions[oid: AttestationOID.androidKeyDescription] else {
            throw WebAuthnError.attestationCertificateInvalid.with(detail: "key attestation extension missing")
        }
        let description = try AndroidKeyDescription(der: keyExtension.value)
        try check(description, clientDataHash: input.clientDataHash)
        return AttestationOutcome(type: .basic, trustPath: certificates)
    }

    /// §8.4.1: the challenge is the client data hash and the key is app-scoped. Origin and
    /// purpose are read from the union of the software- and TEE-enforced lists (this RP does not
    /// demand TEE-only keys); a list that states them must say KM_ORIGIN_GENERATED and include
    /// KM_PURPOSE_SIGN. Lists that omit them are accepted: the spec's own android-key test vector
    /// carries empty authorization lists.
    private static func check(_ description: AndroidKeyDescription, clientDataHash: [UInt8]) throws(WebAuthnError) {
        guard ConstantTime.equal(description.attestationChallenge, clientDataHash) else {
            throw WebAuthnError.attestationNonceMismatch.with(detail: "attestationChallenge")
        }
        let lists = [description.softwareEnforced, description.teeEnforced]
        guard !lists.contains(where: \.allApplications) else {
            throw WebAuthnError.attestationCertificateInvalid.with(detail: "allApplications is present")
        }
        guard !lists.contains(where: { $0.origin.map { $0 != AndroidKeyDescription.originGenerated } ?? false }) else {
            throw WebAuthnError.attestationCertificateInvalid.with(detail: "origin is not KM_ORIGIN_GENERATED")
        }
        let purposes = lists.flatMap(\.purposes)
        guard purposes.isEmpty || purposes.contains(AndroidKeyDescription.purposeSign) else {
            throw WebAuthnError.attestationCertificateInvalid.with(detail: "purpose lacks KM_PURPOSE_SIGN")
        }
    }
}
