import Foundation
import SwiftASN1
import X509

/// What every attestation format procedure receives (§8 "verification procedure" inputs).
struct AttestationInput: Sendable {
    let statement: CBORMap
    let authenticatorData: AuthenticatorData
    let attestedCredential: AttestedCredentialData
    let credentialKey: COSEKey
    let clientDataHash: [UInt8]
    let relyingParty: WebAuthnRelyingParty
    let verificationTime: Date

    /// `authenticatorData ‖ clientDataHash`, the message most formats sign.
    var signedData: [UInt8] { authenticatorData.raw + clientDataHash }
}

/// What a format procedure establishes (§7.1 step 19): the attestation type and trust path.
struct AttestationOutcome: Sendable {
    let type: AttestationType
    /// x5c, leaf first; empty for none and self.
    let trustPath: [Certificate]
    /// Critical extensions the format procedure itself checked, so chain building may accept them.
    var handledCriticalExtensions: [ASN1ObjectIdentifier] = []
}

/// One attestation statement format's verification procedure.
protocol AttestationVerifier {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome
}

extension AttestationFormat {
    var verifier: any AttestationVerifier.Type {
        switch self {
        case .none: NoneAttestation.self
        case .packed: PackedAttestation.self
        case .tpm: TPMAttestation.self
        case .androidKey: AndroidKeyAttestation.self
        case .androidSafetyNet: SafetyNetAttestation.self
        case .fidoU2F: FIDOU2FAttestation.self
        case .apple: AppleAttestation.self
        }
    }
}

extension CBORMap {
    /// The `alg` member of an attestation statement, which must be a known algorithm.
    func statementAlgorithm() throws(WebAuthnError) -> COSEAlgorithm {
        guard let raw = self[text: "alg"]?.intValue else {
            throw WebAuthnError.malformedAttestationStatement.with(detail: "alg missing")
        }
        guard let algorithm = COSEAlgorithm(rawValue: raw), algorithm.isVerifiable else {
            throw WebAuthnError.unsupportedAlgorithm.with(detail: "attStmt alg \(raw)")
        }
        return algorithm
    }

    /// A required byte-string member.
    func statementBytes(_ key: String) throws(WebAuthnError) -> [UInt8] {
        guard let bytes = self[text: key]?.bytesValue else {
            throw WebAuthnError.malformedAttestationStatement.with(detail: "\(key) missing or not bytes")
        }
        return bytes
    }
}
