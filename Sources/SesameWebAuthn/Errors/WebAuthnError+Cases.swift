// The public catalogue of checks; one static value per `WebAuthnError.Code`.
extension WebAuthnError {
    /// `malformed_credential`: the credential JSON is missing members or is not valid base64url.
    public static let malformedCredential = WebAuthnError(.malformedCredential)
    /// `invalid_credential_type`: credential.type is not "public-key".
    public static let invalidCredentialType = WebAuthnError(.invalidCredentialType)
    /// `credential_id_mismatch`: credential.id does not match credential.rawId.
    public static let credentialIDMismatch = WebAuthnError(.credentialIDMismatch)
    /// `malformed_client_data`: clientDataJSON is not a JSON object with string type, challenge and origin.
    public static let malformedClientData = WebAuthnError(.malformedClientData)
    /// `client_data_type_mismatch`: clientDataJSON.type is not the type this ceremony expects.
    public static let clientDataTypeMismatch = WebAuthnError(.clientDataTypeMismatch)
    /// `challenge_mismatch`: clientDataJSON.challenge does not match the expected challenge.
    public static let challengeMismatch = WebAuthnError(.challengeMismatch)
    /// `origin_mismatch`: clientDataJSON.origin is not one of the allowed origins.
    public static let originMismatch = WebAuthnError(.originMismatch)
    /// `cross_origin_not_allowed`: clientDataJSON.crossOrigin is true but cross-origin use is not allowed.
    public static let crossOriginNotAllowed = WebAuthnError(.crossOriginNotAllowed)
    /// `top_origin_not_allowed`: clientDataJSON.topOrigin is not one of the allowed top-level origins.
    public static let topOriginNotAllowed = WebAuthnError(.topOriginNotAllowed)
    /// `token_binding_invalid`: clientDataJSON.tokenBinding has an invalid status.
    public static let tokenBindingInvalid = WebAuthnError(.tokenBindingInvalid)
    /// `malformed_authenticator_data`: authenticatorData is truncated, has trailing bytes or contradicts its flags.
    public static let malformedAuthenticatorData = WebAuthnError(.malformedAuthenticatorData)
    /// `rp_id_hash_mismatch`: authenticatorData.rpIdHash is not the SHA-256 of the RP ID.
    public static let rpIDHashMismatch = WebAuthnError(.rpIDHashMismatch)
    /// `user_presence_required`: the user present (UP) flag is not set.
    public static let userPresenceRequired = WebAuthnError(.userPresenceRequired)
    /// `user_verification_required`: user verification is required but the UV flag is not set.
    public static let userVerificationRequired = WebAuthnError(.userVerificationRequired)
    /// `backup_state_without_eligibility`: the backup state (BS) flag is set without backup eligibility (BE).
    public static let backupStateWithoutEligibility = WebAuthnError(.backupStateWithoutEligibility)
    /// `backup_eligibility_changed`: the backup eligibility (BE) flag differs from the stored credential.
    public static let backupEligibilityChanged = WebAuthnError(.backupEligibilityChanged)
    /// `attested_credential_data_missing`: authenticatorData carries no attested credential data (AT flag clear).
    public static let attestedCredentialDataMissing = WebAuthnError(.attestedCredentialDataMissing)
    /// `credential_id_too_long`: the credential ID is longer than 1023 bytes.
    public static let credentialIDTooLong = WebAuthnError(.credentialIDTooLong)
    /// `sign_count_not_increased`: the signature counter did not increase; the authenticator may be cloned.
    public static let signCountNotIncreased = WebAuthnError(.signCountNotIncreased)
    /// `malformed_public_key`: the credential public key is not a valid COSE_Key.
    public static let malformedPublicKey = WebAuthnError(.malformedPublicKey)
    /// `unsupported_algorithm`: the signature algorithm is not supported by this relying party library.
    public static let unsupportedAlgorithm = WebAuthnError(.unsupportedAlgorithm)
    /// `algorithm_not_allowed`: the credential public key algorithm is not one of the allowed algorithms.
    public static let algorithmNotAllowed = WebAuthnError(.algorithmNotAllowed)
    /// `invalid_signature`: the assertion signature does not verify with the credential public key.
    public static let invalidSignature = WebAuthnError(.invalidSignature)
    /// `malformed_attestation_object`: attestationObject is not a CBOR map with text fmt, map attStmt and bytes authData.
    public static let malformedAttestationObject = WebAuthnError(.malformedAttestationObject)
    /// `unsupported_attestation_format`: the attestation statement format is not supported.
    public static let unsupportedAttestationFormat = WebAuthnError(.unsupportedAttestationFormat)
    /// `malformed_attestation_statement`: the attestation statement is missing members or has wrong types.
    public static let malformedAttestationStatement = WebAuthnError(.malformedAttestationStatement)
    /// `attestation_signature_invalid`: the attestation signature does not verify.
    public static let attestationSignatureInvalid = WebAuthnError(.attestationSignatureInvalid)
    /// `attestation_certificate_invalid`: the attestation certificate does not meet the format's requirements.
    public static let attestationCertificateInvalid = WebAuthnError(.attestationCertificateInvalid)
    /// `attestation_aaguid_mismatch`: the attestation certificate AAGUID extension does not match authenticatorData.
    public static let attestationAAGUIDMismatch = WebAuthnError(.attestationAAGUIDMismatch)
    /// `attestation_public_key_mismatch`: the attested public key does not match the credential public key.
    public static let attestationPublicKeyMismatch = WebAuthnError(.attestationPublicKeyMismatch)
    /// `attestation_nonce_mismatch`: the attestation nonce or challenge does not match the client data.
    public static let attestationNonceMismatch = WebAuthnError(.attestationNonceMismatch)
    /// `attestation_untrusted`: the attestation certificate chain does not lead to a trusted anchor.
    public static let attestationUntrusted = WebAuthnError(.attestationUntrusted)
    /// `attestation_certificate_revoked`: an attestation certificate is on the revocation list.
    public static let attestationCertificateRevoked = WebAuthnError(.attestationCertificateRevoked)
    /// `safetynet_timestamp_invalid`: the SafetyNet timestampMs is too far from the verification time.
    public static let safetyNetTimestampInvalid = WebAuthnError(.safetyNetTimestampInvalid)
    /// `safetynet_integrity_failed`: the SafetyNet response failed ctsProfileMatch or basicIntegrity.
    public static let safetyNetIntegrityFailed = WebAuthnError(.safetyNetIntegrityFailed)
    /// `tpm_structure_invalid`: the TPM certInfo or pubArea is malformed or inconsistent.
    public static let tpmStructureInvalid = WebAuthnError(.tpmStructureInvalid)
}
