import Foundation
import SesameWebAuthn
import SwiftASN1
import X509

/// Builds the WebAuthn relying party for a ceremony from the settings and the applications
/// as stored right now, so an admin change (a new allowed origin) applies without a restart.
struct PasskeyRelyingParties: Sendable {
    let storage: any SesameStorage
    let settings: LoginSettings

    /// The RP ID: configured, or the issuer's host.
    var rpID: String { settings.passkeyRPID ?? URL(string: settings.issuer)?.host ?? "localhost" }

    func relyingParty(for policy: PasskeyPolicy) async throws -> WebAuthnRelyingParty {
        var relyingParty = WebAuthnRelyingParty(
            rpID: rpID, allowedOrigins: try await OriginPolicy(applications: storage, settings: settings).passkeyOrigins())
        relyingParty.requireUserVerification = policy.userVerification == "required"
        relyingParty.supportedAlgorithms = policy.algorithms.compactMap(COSEAlgorithm.init(rawValue:))
        relyingParty.trustAnchors = policy.trustAnchorsPEM.compactMap { try? Certificate(pemEncoded: $0) }
        // Without anchors there is nothing to validate against: attested passkeys are then
        // accepted and recorded as unverified, as in py_webauthn and SimpleWebAuthn.
        relyingParty.chainValidation = relyingParty.trustAnchors.isEmpty ? .whenAnchorsConfigured : .required
        return relyingParty
    }
}

/// SHA-256 certificate fingerprints as Android tooling prints them (`AA:BB:…`).
public enum AndroidFingerprint {
    /// The 32 digest bytes, or nil when the text is not 32 colon-separated hex pairs.
    public static func bytes(_ fingerprint: String) -> [UInt8]? {
        let pairs = fingerprint.split(separator: ":")
        guard pairs.count == 32 else { return nil }
        let bytes = pairs.compactMap { $0.count == 2 ? UInt8($0, radix: 16) : nil }
        return bytes.count == 32 ? bytes : nil
    }

    /// The canonical upper-case form, or nil when invalid.
    public static func normalized(_ fingerprint: String) -> String? {
        bytes(fingerprint).map { $0.map { String(format: "%02X", $0) }.joined(separator: ":") }
    }
}
