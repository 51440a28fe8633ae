import Foundation
import SesameAPI
import SesameWebAuthn
import SwiftASN1
import X509

extension ConformanceCase {
    /// The relying party this case describes. The corpus follows py_webauthn's trust policy
    /// (validate x5c only when roots are configured), so cases use `.whenAnchorsConfigured`, or
    /// `.disabled` where the source configured no trust anchor at all.
    func relyingParty() throws -> WebAuthnRelyingParty {
        var relyingParty = WebAuthnRelyingParty(rpID: expectedRPID, allowedOrigins: origins)
        relyingParty.requireUserVerification = requireUserVerification
        relyingParty.requireUserPresence = requireUserPresence ?? true
        if let supportedAlgs {
            relyingParty.supportedAlgorithms = supportedAlgs.compactMap(COSEAlgorithm.init(rawValue:))
        }
        relyingParty.allowCrossOrigin = policy?.allowCrossOrigin ?? false
        relyingParty.allowedTopOrigins = policy?.allowedTopOrigins ?? []
        if case .bool(let require) = policy?.safetyNetRequireCTSProfileMatch {
            relyingParty.requireCTSProfileMatch = require
        }
        relyingParty.trustAnchors = try (attestationRootCerts ?? []).map { try Certificate(pemEncoded: $0) }
        relyingParty.chainValidation = skipChainValidation == true ? .disabled : .whenAnchorsConfigured
        return relyingParty
    }

    var origins: [String] {
        switch expectedOrigin {
        case .string(let origin): [origin]
        case .array(let values): values.compactMap { if case .string(let origin) = $0 { origin } else { nil } }
        default: []
        }
    }

    /// `verification_time`, or now.
    var now: Date {
        guard let verificationTime else { return Date() }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: verificationTime) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: verificationTime) ?? Date()
    }

    var credentialJSON: Data {
        get throws { try JSONEncoder().encode(credential) }
    }

    func bytes(_ base64url: String?) -> [UInt8] {
        base64url.flatMap(Base64URL.decodeTolerant) ?? []
    }
}
