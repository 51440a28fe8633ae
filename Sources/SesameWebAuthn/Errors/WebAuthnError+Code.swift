extension WebAuthnError {
    /// The failed check. Internal so that new checks can be added without breaking callers.
    enum Code: String, Sendable, CaseIterable {
        // MARK: Credential JSON (§5.1, transport encoding)
        case malformedCredential = "malformed_credential"
        case invalidCredentialType = "invalid_credential_type"
        case credentialIDMismatch = "credential_id_mismatch"

        // MARK: clientDataJSON (§7.1 steps 5-10, §7.2 steps 10-15)
        case malformedClientData = "malformed_client_data"
        case clientDataTypeMismatch = "client_data_type_mismatch"
        case challengeMismatch = "challenge_mismatch"
        case originMismatch = "origin_mismatch"
        case crossOriginNotAllowed = "cross_origin_not_allowed"
        case topOriginNotAllowed = "top_origin_not_allowed"
        case tokenBindingInvalid = "token_binding_invalid"

        // MARK: authenticatorData (§6.1)
        case malformedAuthenticatorData = "malformed_authenticator_data"
        case rpIDHashMismatch = "rp_id_hash_mismatch"
        case userPresenceRequired = "user_presence_required"
        case userVerificationRequired = "user_verification_required"
        case backupStateWithoutEligibility = "backup_state_without_eligibility"
        case backupEligibilityChanged = "backup_eligibility_changed"
        case attestedCredentialDataMissing = "attested_credential_data_missing"
        case credentialIDTooLong = "credential_id_too_long"
        case signCountNotIncreased = "sign_count_not_increased"

        // MARK: Keys and signatures (§5.8.5, §6.5.6)
        case malformedPublicKey = "malformed_public_key"
        case unsupportedAlgorithm = "unsupported_algorithm"
        case algorithmNotAllowed = "algorithm_not_allowed"
        case invalidSignature = "invalid_signature"

        // MARK: Attestation (§8)
        case malformedAttestationObject = "malformed_attestation_object"
        case unsupportedAttestationFormat = "unsupported_attestation_format"
        case malformedAttestationStatement = "malformed_attestation_statement"
        case attestationSignatureInvalid = "attestation_signature_invalid"
        case attestationCertificateInvalid = "attestation_certificate_invalid"
        case attestationAAGUIDMismatch = "attestation_aaguid_mismatch"
        case attestationPublicKeyMismatch = "attestation_public_key_mismatch"
        case attestationNonceMismatch = "attestation_nonce_mismatch"
        case attestationUntrusted = "attestation_untrusted"
        case attestationCertificateRevoked = "attestation_certificate_revoked"
        case safetyNetTimestampInvalid = "safetynet_timestamp_invalid"
        case safetyNetIntegrityFailed = "safetynet_integrity_failed"
        case tpmStructureInvalid = "tpm_structure_invalid"

        var message: String {
            switch self {
            case .malformedCredential: "the credential JSON is missing members or is not valid base64url"
            case .invalidCredentialType: "credential.type is not \"public-key\""
            case .credentialIDMismatch: "credential.id does not match credential.rawId"
            case .malformedClientData: "clientDataJSON is not a JSON object with string type, challenge and origin"
            case .clientDataTypeMismatch: "clientDataJSON.type is not the type this ceremony expects"
            case .challengeMismatch: "clientDataJSON.challenge does not match the expected challenge"
            case .originMismatch: "clientDataJSON.origin is not one of the allowed origins"
            case .crossOriginNotAllowed: "clientDataJSON.crossOrigin is true but cross-origin use is not allowed"
            case .topOriginNotAllowed: "clientDataJSON.topOrigin is not one of the allowed top-level origins"
            case .tokenBindingInvalid: "clientDataJSON.tokenBinding has an invalid status"
            case .malformedAuthenticatorData: "authenticatorData is truncated, has trailing bytes or contradicts its flags"
            case .rpIDHashMismatch: "authenticatorData.rpIdHash is not the SHA-256 of the RP ID"
            case .userPresenceRequired: "the user present (UP) flag is not set"
            case .userVerificationRequired: "user verification is required but the UV flag is not set"
            case .backupStateWithoutEligibility: "the backup state (BS) flag is set without backup eligibility (BE)"
            case .backupEligibilityChanged: "the backup eligibility (BE) flag differs from the stored credential"
            case .attestedCredentialDataMissing: "authenticatorData carries no attested credential data (AT flag clear)"
            case .credentialIDTooLong: "the credential ID is longer than 1023 bytes"
            case .signCountNotIncreased: "the signature counter did not increase; the authenticator may be cloned"
            case .malformedPublicKey: "the credential public key is not a valid COSE_Key"
            case .unsupportedAlgorithm: "the signature algorithm is not supported by this relying party library"
            case .algorithmNotAllowed: "the credential public key algorithm is not one of the allowed algorithms"
            case .invalidSignature: "the assertion signature does not verify with the credential public key"
            case .malformedAttestationObject: "attestationObject is not a CBOR map with text fmt, map attStmt and bytes authData"
            case .unsupportedAttestationFormat: "the attestation statement format is not supported"
            case .malformedAttestationStatement: "the attestation statement is missing members or has wrong types"
            case .attestationSignatureInvalid: "the attestation signature does not verify"
            case .attestationCertificateInvalid: "the attestation certificate does not meet the format's requirements"
            case .attestationAAGUIDMismatch: "the attestation certificate AAGUID extension does not match authenticatorData"
            case .attestationPublicKeyMismatch: "the attested public key does not match the credential public key"
            case .attestationNonceMismatch: "the attestation nonce or challenge does not match the client data"
            case .attestationUntrusted: "the attestation certificate chain does not lead to a trusted anchor"
            case .attestationCertificateRevoked: "an attestation certificate is on the revocation list"
            case .safetyNetTimestampInvalid: "the SafetyNet timestampMs is too far from the verification time"
            case .safetyNetIntegrityFailed: "the SafetyNet response failed ctsProfileMatch or basicIntegrity"
            case .tpmStructureInvalid: "the TPM certInfo or pubArea is malformed or inconsistent"
            }
        }
    }
}
