import Crypto
import SwiftASN1
import X509

/// §8.8 `apple` anonymous attestation: `{x5c}`; the leaf carries the nonce and the credential key.
enum AppleAttestation: AttestationVerifier {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        let certificates = try AttestationCertificates.parse(input.statement)
        let leaf = certificates[0]
        // Steps 2-4: nonce = SHA-256(authenticatorData ‖ clientDataHash) must be in the leaf extension.
        let nonce = Array(SHA256.hash(data: input.signedData))
        guard let nonceExtension = leaf.extensions[oid: AttestationOID.appleNonce],
            let certified = try? certifiedNonce(nonceExtension.value)
        else { throw WebAuthnError.attestationCertificateInvalid.with(detail: "Apple nonce extension missing") }
        guard ConstantTime.equal(certified, nonce) else { throw WebAuthnError.attestationNonceMismatch }
        // Step 5: the leaf's key is the credential key.
        guard leaf.hasPublicKey(of: input.credentialKey) else { throw WebAuthnError.attestationPublicKeyMismatch }
        return AttestationOutcome(type: .anonymizationCA, trustPath: certificates)
    }

    /// The extension value is `SEQUENCE { [1] EXPLICIT OCTET STRING nonce }`.
    private static func certifiedNonce(_ value: ArraySlice<UInt8>) throws -> [UInt8] {
        let root = try DER.parse(value)
        return try DER.sequence(root, identifier: .sequence) { nodes in
            try DER.explicitlyTagged(&nodes, tagNumber: 1, tagClass: .contextSpecific) { node in
                Array(try ASN1OctetString(derEncoded: node).bytes)
            }
        }
    }
}
