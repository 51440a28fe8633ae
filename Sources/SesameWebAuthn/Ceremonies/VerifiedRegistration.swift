public import Foundation
public import X509

/// The result of a successful registration: what to store in the credential record (§7.1 step 27).
public struct VerifiedRegistration: Sendable {
    /// The attestation statement format, e.g. `none` or `packed`.
    public let format: AttestationFormat
    /// The credential ID (store as the record's key; it must not already be registered).
    public let credentialID: [UInt8]
    /// The credential public key as COSE_Key bytes, exactly as the authenticator sent it.
    public let credentialPublicKey: [UInt8]
    /// The credential public key's algorithm.
    public let credentialAlgorithm: COSEAlgorithm
    /// The initial signature counter.
    public let signCount: UInt32
    /// The authenticator model's AAGUID (all zeros when the authenticator does not say).
    public let aaguid: UUID
    /// All authenticator data flags.
    public let flags: AuthenticatorFlags
    /// The attestation type the format's procedure established.
    public let attestationType: AttestationType
    /// The x5c certificates as received, leaf first (empty for none and self attestation).
    public let attestationCertificates: [Certificate]
    /// Whether the attestation chain was validated against a trust anchor.
    public let attestationTrust: AttestationTrust
    /// Transport hints from the response, to store for `allowCredentials`.
    public let transports: [String]?

    /// UV: the user was verified during registration (store as `uvInitialized`).
    public var userVerified: Bool { flags.userVerified }
    /// BE: the credential may sync (store; it must not change later).
    public var backupEligible: Bool { flags.backupEligible }
    /// BS: the credential is backed up now.
    public var backedUp: Bool { flags.backedUp }
    /// `single_device` or `multi_device`, from BE.
    public var deviceType: CredentialDeviceType { flags.deviceType }
}

/// Attestation types (§6.5.4).
public enum AttestationType: String, Sendable, Hashable {
    /// No attestation (`none`).
    case none
    /// Self attestation: signed with the credential key itself.
    case selfAttestation = "self"
    /// Basic attestation: an attestation key shared by a batch of authenticators.
    case basic
    /// Attestation CA: a per-key certificate from a CA (TPM AIK, Android key attestation).
    case attestationCA = "attca"
    /// Anonymization CA: a per-credential certificate (Apple).
    case anonymizationCA = "anonca"
}

/// What the relying party established about an attestation certificate chain.
public enum AttestationTrust: Sendable, Hashable {
    /// There is no chain (none or self attestation).
    case notApplicable
    /// The chain validated to a trust anchor; the array is the chain from leaf to anchor.
    case trusted([Certificate])
    /// The chain was not validated (no anchors with ``CertificateChainValidation/whenAnchorsConfigured``,
    /// or validation disabled).
    case unverified
}
