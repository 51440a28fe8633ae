import X509

/// §8.2 `packed`: `{alg, sig, x5c?}`.
enum PackedAttestation: AttestationVerifier {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        let algorithm = try input.statement.statementAlgorithm()
        let signature = try input.statement.statementBytes("sig")
        if input.statement[text: "x5c"] != nil {
            return try verifyFull(input, algorithm: algorithm, signature: signature)
        }
        return try verifySelf(input, algorithm: algorithm, signature: signature)
    }

    /// §8.2.2 step 2 (x5c present): the leaf key signs `authenticatorData ‖ clientDataHash`.
    private static func verifyFull(
        _ input: AttestationInput,
        algorithm: COSEAlgorithm,
        signature: [UInt8]
    ) throws(WebAuthnError) -> AttestationOutcome {
        let certificates = try AttestationCertificates.parse(input.statement)
        let leaf = certificates[0]
        guard try VerificationKey(certificate: leaf).isValidSignature(signature, for: input.signedData, algorithm: algorithm)
        else { throw WebAuthnError.attestationSignatureInvalid }
        try checkLeafRequirements(leaf)
        try leaf.checkAAGUIDExtension(expected: input.attestedCredential.aaguid)
        return AttestationOutcome(type: .basic, trustPath: certificates)
    }

    /// §8.2.2 step 3 (self attestation): `alg` must be the credential key's alg and the
    /// credential key itself signs.
    private static func verifySelf(
        _ input: AttestationInput,
        algorithm: COSEAlgorithm,
        signature: [UInt8]
    ) throws(WebAuthnError) -> AttestationOutcome {
        guard algorithm == input.credentialKey.algorithm else {
            throw WebAuthnError.attestationSignatureInvalid.with(detail: "self attestation alg differs from key alg")
        }
        guard input.credentialKey.key.isValidSignature(signature, for: input.signedData, algorithm: algorithm) else {
            throw WebAuthnError.attestationSignatureInvalid
        }
        return AttestationOutcome(type: .selfAttestation, trustPath: [])
    }

    /// §8.2.1 packed attestation certificate requirements: X.509 v3; subject C, O,
    /// OU = "Authenticator Attestation", CN; not a CA.
    private static func checkLeafRequirements(_ leaf: Certificate) throws(WebAuthnError) {
        guard leaf.version == .v3 else {
            throw WebAuthnError.attestationCertificateInvalid.with(detail: "not X.509 v3")
        }
        let country = leaf.subjectValues(AttestationOID.countryName)
        guard country.count == 1, country[0].count == 2,
            !leaf.subjectValues(AttestationOID.organizationName).isEmpty,
            leaf.subjectValues(AttestationOID.organizationalUnitName) == ["Authenticator Attestation"],
            !leaf.subjectValues(AttestationOID.commonName).isEmpty
        else { throw WebAuthnError.attestationCertificateInvalid.with(detail: "subject C/O/OU/CN requirements") }
        try leaf.checkNotCertificateAuthority()
    }
}
