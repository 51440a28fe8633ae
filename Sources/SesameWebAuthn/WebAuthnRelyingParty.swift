public import Foundation
public import X509

/// A WebAuthn relying party: verifies registration (§7.1) and authentication (§7.2) ceremonies.
///
/// The type holds configuration only. It stores nothing and performs no I/O: the caller keeps
/// challenges and credential records, and passes the values each ceremony needs.
///
/// ```swift
/// var relyingParty = WebAuthnRelyingParty(rpID: "example.org", allowedOrigins: ["https://example.org"])
/// relyingParty.requireUserVerification = true
/// let registration = try await relyingParty.verifyRegistration(
///     credential: credential, expectedChallenge: challenge, verificationTime: .now)
/// // store registration.credentialID, registration.credentialPublicKey, registration.signCount ...
/// ```
///
/// Defaults are strict: user presence and user verification are required, cross-origin
/// embedding is refused, RS1 is not accepted for credentials, and attestation certificate
/// chains must reach one of ``trustAnchors``.
public struct WebAuthnRelyingParty: Sendable {
    /// The RP ID whose SHA-256 must equal `rpIdHash` (a registrable domain, e.g. `example.org`).
    public var rpID: String {
        didSet { rpIDHash = Self.hash(rpID) }
    }
    /// SHA-256 of ``rpID``, which every authenticator data must begin with: computed when the
    /// RP ID is set, not in each ceremony of a relying party that verifies many.
    private(set) var rpIDHash: [UInt8]
    /// Exact `clientDataJSON.origin` values accepted, e.g. `https://example.org` or
    /// `android:apk-key-hash:<base64url SHA-256 of the signing certificate>`.
    public var allowedOrigins: [String]
    /// Exact `clientDataJSON.topOrigin` values accepted when ``allowCrossOrigin`` is true.
    public var allowedTopOrigins: [String]
    /// Whether ceremonies from cross-origin iframes (`crossOrigin: true`) are accepted.
    public var allowCrossOrigin: Bool
    /// Whether the UV flag must be set (`userVerification: "required"` in the options).
    public var requireUserVerification: Bool
    /// Whether the UP flag must be set at registration; false only for conditional (automatic)
    /// registration. Assertions always require UP.
    public var requireUserPresence: Bool
    /// The `pubKeyCredParams` algorithms offered at registration; others are refused.
    public var supportedAlgorithms: [COSEAlgorithm]
    /// Root certificates that attestation chains (x5c) may lead to.
    public var trustAnchors: [Certificate]
    /// How attestation certificate chains are judged.
    public var chainValidation: CertificateChainValidation
    /// SafetyNet only: whether `ctsProfileMatch` must be true (`basicIntegrity` always must).
    public var requireCTSProfileMatch: Bool
    /// SafetyNet only: how far `timestampMs` may be from the verification time.
    public var safetyNetTimestampTolerance: TimeInterval
    /// Attestation certificates known to be revoked (for example from CRLs the caller fetched).
    public var revokedCertificates: [RevokedCertificate]

    /// Creates a relying party with strict defaults.
    /// - Parameters:
    ///   - rpID: The RP ID, e.g. `example.org`.
    ///   - allowedOrigins: Exact origins accepted in client data.
    public init(rpID: String, allowedOrigins: [String]) {
        self.rpID = rpID
        self.rpIDHash = Self.hash(rpID)
        self.allowedOrigins = allowedOrigins
        self.allowedTopOrigins = []
        self.allowCrossOrigin = false
        self.requireUserVerification = true
        self.requireUserPresence = true
        self.supportedAlgorithms = COSEAlgorithm.defaultSupported
        self.trustAnchors = []
        self.chainValidation = .required
        self.requireCTSProfileMatch = true
        self.safetyNetTimestampTolerance = 60
        self.revokedCertificates = []
    }
}

/// How attestation certificate chains are judged (§7.1 steps 21-22).
public enum CertificateChainValidation: Sendable, Hashable {
    /// Every x5c chain must validate to one of the trust anchors (the strict default).
    case required
    /// Validate when trust anchors are configured; with none, accept the attestation and report
    /// it as ``AttestationTrust/unverified`` (the policy of py_webauthn and SimpleWebAuthn).
    case whenAnchorsConfigured
    /// Never validate chains; attestation signatures are still checked.
    case disabled
}

/// A certificate the caller knows to be revoked, identified by issuer and serial number.
public struct RevokedCertificate: Sendable, Hashable {
    /// The issuer's distinguished name.
    public var issuer: DistinguishedName
    /// The serial number.
    public var serialNumber: Certificate.SerialNumber

    /// Creates a revocation entry.
    public init(issuer: DistinguishedName, serialNumber: Certificate.SerialNumber) {
        self.issuer = issuer
        self.serialNumber = serialNumber
    }

    /// The entry that revokes `certificate`.
    public init(_ certificate: Certificate) {
        self.init(issuer: certificate.issuer, serialNumber: certificate.serialNumber)
    }
}
