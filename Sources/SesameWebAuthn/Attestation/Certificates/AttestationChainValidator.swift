import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Judges an attestation trust path (§7.1 steps 21-22) with swift-certificates' `Verifier`.
struct AttestationChainValidator {
    let relyingParty: WebAuthnRelyingParty
    let verificationTime: Date

    /// Validates `outcome.trustPath` according to ``WebAuthnRelyingParty/chainValidation``.
    func judge(_ outcome: AttestationOutcome) async throws(WebAuthnError) -> AttestationTrust {
        guard let leaf = outcome.trustPath.first else { return .notApplicable }
        try checkRevocation(outcome.trustPath)
        switch relyingParty.chainValidation {
        case .disabled:
            return .unverified
        case .whenAnchorsConfigured where relyingParty.trustAnchors.isEmpty:
            return .unverified
        case .required, .whenAnchorsConfigured:
            let chain = await validate(leaf: leaf, intermediates: Array(outcome.trustPath.dropFirst()), outcome)
            guard let chain else { throw WebAuthnError.attestationUntrusted }
            try checkRevocation(chain)
            return .trusted(chain)
        }
    }

    /// Builds a chain from the leaf through the other x5c certificates to an anchor, checking
    /// signatures, validity at `verificationTime`, basic and name constraints (RFC 5280).
    private func validate(
        leaf: Certificate,
        intermediates: [Certificate],
        _ outcome: AttestationOutcome
    ) async -> [Certificate]? {
        let policy = AttestationChainPolicy(
            base: RFC5280Policy(fixedExpiryValidationTime: verificationTime),
            extraCriticalExtensions: outcome.handledCriticalExtensions
        )
        var verifier = Verifier(rootCertificates: CertificateStore(relyingParty.trustAnchors)) { policy }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates))
        guard case .validCertificate(let chain) = result else { return nil }
        return Array(chain)
    }

    private func checkRevocation(_ certificates: [Certificate]) throws(WebAuthnError) {
        guard !relyingParty.revokedCertificates.isEmpty else { return }
        let revoked = Set(relyingParty.revokedCertificates)
        for certificate in certificates where revoked.contains(RevokedCertificate(certificate)) {
            throw WebAuthnError.attestationCertificateRevoked.with(detail: "serial \(certificate.serialNumber)")
        }
    }
}

/// RFC 5280 path validation plus the critical extensions a format procedure checks itself
/// (for example the TPM AIK's critical subjectAltName and certificatePolicies).
private struct AttestationChainPolicy: VerifierPolicy {
    let base: RFC5280Policy
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier]

    init(base: RFC5280Policy, extraCriticalExtensions: [ASN1ObjectIdentifier]) {
        self.base = base
        self.verifyingCriticalExtensions = base.verifyingCriticalExtensions + extraCriticalExtensions
    }

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        base.chainMeetsPolicyRequirements(chain: chain)
    }
}
