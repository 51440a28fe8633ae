import ArgumentParser
import Foundation
import SesameWebAuthn
import SwiftASN1
import X509

/// `sesame passkey verify-registration`: runs §7.1 over a `navigator.credentials.create()` response.
struct VerifyRegistrationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-registration",
        abstract: "Verify a registration (attestation) response read from standard input.",
        discussion: """
            Example:
              sesame passkey verify-registration --rp-id=example.org \\
                --origin=https://example.org --challenge=q83vEjRWeJA < registration.json

            On success (exit 0) standard output is one JSON object: fmt, credential_id, \
            credential_public_key (base64url COSE_Key: store it), sign_count, aaguid, user_verified, \
            credential_device_type (single_device or multi_device), credential_backed_up, and flags \
            {UP, UV, BE, BS, AT, ED}. Notes about the attestation (for example an unvalidated \
            certificate chain) go to standard error.

            On a failed check (exit 1) standard output is one line naming the check and why, e.g. \
            "challenge_mismatch: clientDataJSON.challenge does not match the expected challenge". \
            Usage errors exit 64 with the message on standard error.

            Attestation certificate chains (x5c) are validated when --trust-anchor is given. Without \
            anchors the attestation signature is still checked but the chain is reported as not \
            validated; --require-trusted-attestation makes that a failure (attestation_untrusted).
            """)

    @OptionGroup var ceremony: CeremonyOptions

    @Flag(help: "Accept a response without the UP flag (conditional, automatic passkey upgrade registration).")
    var noRequireUserPresence = false

    @Option(
        help: ArgumentHelp(
            "\"Now\" for certificate validity and SafetyNet freshness, ISO 8601 (e.g. 2024-05-01T12:00:00Z). Default: the current time.",
            valueName: "time"))
    var verificationTime: String?

    @Option(
        help: ArgumentHelp(
            "A PEM file with root certificates attestation chains may lead to (Apple, Google, Yubico, TPM vendors...). Repeatable.",
            valueName: "pem-file"))
    var trustAnchor: [String] = []

    @Flag(help: "Do not validate attestation certificate chains at all (signatures are still checked).")
    var noChainValidation = false

    @Flag(help: "Fail when an attestation chain cannot be validated, including when no --trust-anchor is given.")
    var requireTrustedAttestation = false

    @Flag(help: "SafetyNet: accept ctsProfileMatch false (basicIntegrity must still be true).")
    var noRequireCtsProfileMatch = false

    @Option(
        help: ArgumentHelp(
            "A PEM file with attestation certificates known to be revoked (for example taken from a CRL). Repeatable.",
            valueName: "pem-file"))
    var revokedCertificate: [String] = []

    func validate() throws {
        if noChainValidation, requireTrustedAttestation {
            throw ValidationError("--no-chain-validation and --require-trusted-attestation contradict each other.")
        }
        _ = try now()
    }

    func run() async throws {
        var relyingParty = ceremony.relyingParty()
        relyingParty.requireUserPresence = !noRequireUserPresence
        relyingParty.requireCTSProfileMatch = !noRequireCtsProfileMatch
        relyingParty.trustAnchors = try trustAnchor.flatMap(PEMCertificates.read)
        relyingParty.revokedCertificates = try revokedCertificate.flatMap(PEMCertificates.read).map(RevokedCertificate.init)
        relyingParty.chainValidation =
            noChainValidation ? .disabled : requireTrustedAttestation ? .required : .whenAnchorsConfigured
        let json = try InspectorOutput.readCredential()
        let verificationTime = try now()
        let result: VerifiedRegistration
        do {
            let credential = try RegistrationCredential(json: json)
            result = try await relyingParty.verifyRegistration(
                credential: credential, expectedChallenge: ceremony.challengeBytes, verificationTime: verificationTime)
        } catch {
            throw InspectorOutput.fail(error)
        }
        try printJSON(InspectorOutput.Registration(result))
        describeTrust(result)
    }

    private func now() throws -> Date {
        guard let verificationTime else { return Date() }
        guard let date = ISO8601Parsing.date(verificationTime) else {
            throw ValidationError("--verification-time is not an ISO 8601 date-time: \(verificationTime)")
        }
        return date
    }

    private func describeTrust(_ result: VerifiedRegistration) {
        let certificates = result.attestationCertificates.count
        switch result.attestationTrust {
        case .notApplicable:
            InspectorOutput.note("attestation type \(result.attestationType.rawValue), no certificate chain")
        case .trusted(let chain):
            InspectorOutput.note(
                "attestation type \(result.attestationType.rawValue), chain validated to \(chain.last?.subject.description ?? "an anchor")"
            )
        case .unverified:
            let reason = noChainValidation ? "--no-chain-validation" : "no --trust-anchor given"
            InspectorOutput.note(
                "attestation type \(result.attestationType.rawValue), \(certificates) certificate(s) NOT validated (\(reason))")
        }
    }
}

/// Certificates from PEM files, for trust anchors and revocation lists.
enum PEMCertificates {
    /// Every `CERTIFICATE` block in the file.
    /// - Throws: `ValidationError` (exit 64) when the file cannot be read or holds no parsable certificate.
    static func read(_ path: String) throws -> [Certificate] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("Cannot read the PEM file \(path).")
        }
        let end = "-----END CERTIFICATE-----"
        let blocks = text.components(separatedBy: end).compactMap { block in
            block.range(of: "-----BEGIN CERTIFICATE-----").map { String(block[$0.lowerBound...]) + end }
        }
        do {
            let certificates = try blocks.map { try Certificate(pemEncoded: $0) }
            guard !certificates.isEmpty else { throw ValidationError("no certificate") }
            return certificates
        } catch {
            throw ValidationError("\(path) does not hold PEM certificates: \(error)")
        }
    }
}

/// ISO 8601 date-times, with or without fractional seconds.
enum ISO8601Parsing {
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
