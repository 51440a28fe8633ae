import Crypto

/// §8.6 `fido-u2f`: `{sig, x5c: [one certificate]}` over the U2F registration message.
enum FIDOU2FAttestation: AttestationVerifier {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        let certificates = try AttestationCertificates.parse(input.statement)
        let signature = try input.statement.statementBytes("sig")
        guard certificates.count == 1 else {
            throw WebAuthnError.malformedAttestationStatement.with(detail: "fido-u2f x5c must hold one certificate")
        }
        // Step 2: the attestation key must be EC P-256.
        guard case .p256(let leafKey) = try VerificationKey(certificate: certificates[0]) else {
            throw WebAuthnError.attestationCertificateInvalid.with(detail: "fido-u2f key is not P-256")
        }
        // Step 4: the credential key must be an uncompressed P-256 point.
        guard case .ec2(curve: 1, let x, let y) = input.credentialKey.parameters else {
            throw WebAuthnError.malformedPublicKey.with(detail: "fido-u2f credential key must be P-256")
        }
        // Step 5: 0x00 ‖ rpIdHash ‖ clientDataHash ‖ credentialId ‖ 0x04 ‖ x ‖ y.
        let message: [UInt8] =
            [0x00] + input.authenticatorData.rpIDHash + input.clientDataHash
            + input.attestedCredential.credentialID + [0x04] + x + y
        guard VerificationKey.p256(leafKey).isValidSignature(signature, for: message, algorithm: .es256) else {
            throw WebAuthnError.attestationSignatureInvalid
        }
        return AttestationOutcome(type: .basic, trustPath: certificates)
    }
}
