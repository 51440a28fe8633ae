/// What the shared WebAuthn corpus (`../shared/conformance/webauthn/vectors.json`) cannot
/// reach as written, and why; every test that replays the corpus uses these lists.
public enum CorpusExpectations {
    /// Cases whose credential algorithm nothing here can verify (Ed448, ML-DSA-44; see
    /// Sources/SesameWebAuthn/Documentation.md): they must be refused with `unsupported_algorithm`.
    public static let refusedAsUnsupported: Set<String> = [
        "w3c-spec/packed-ed448/registration",
        "w3c-spec/packed-ed448/authentication",
        "py_webauthn/test_verify_registration_response_pqc/TestVerifyRegistrationResponsePQC::test_verify_pqc_ml_dsa_44_packed_response",
        "py_webauthn/test_verify_authentication_response_pqc/TestVerifyAuthenticationResponsePQC::test_verify_ml_dsa_44_response",
    ]

    /// Cases whose expected failure comes from revocation data the source suite fetched (a CRL)
    /// and the corpus does not carry: tests supply the revoked certificate, as an operator with
    /// that CRL would, and expect `attestation_certificate_revoked`.
    public static let needsRevocationData: Set<String> = [
        "SimpleWebAuthn/verifyAttestationAndroidSafetyNet/should reject when a revoked certificate is found"
    ]
}
