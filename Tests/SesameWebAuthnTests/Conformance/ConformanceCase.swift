import Foundation
import SesameAPI
import SesameWebAuthn
import Testing

/// One case of the corpus (each case: a name, the ceremony, the relying-party settings, the response and the expected outcome). Only the members the tests use are decoded.
struct ConformanceCase: Decodable, Sendable, CustomTestStringConvertible {
    struct Expected: Decodable, Sendable {
        let outcome: String
        let fmt: String?
        let credentialID: String?
        let credentialPublicKey: String?
        let signCount: UInt32?
        let aaguid: String?
        let userVerified: Bool?
        let credentialDeviceType: String?
        let credentialBackedUp: Bool?
        let reason: String?

        enum CodingKeys: String, CodingKey {
            case outcome, fmt, aaguid, reason
            case credentialID = "credential_id", credentialPublicKey = "credential_public_key"
            case signCount = "sign_count", userVerified = "user_verified"
            case credentialDeviceType = "credential_device_type", credentialBackedUp = "credential_backed_up"
        }
    }

    struct Policy: Decodable, Sendable {
        let allowCrossOrigin: Bool?
        let allowedTopOrigins: [String]?
        /// `false`, `true`, or `{"__undefined": true}` meaning "library default".
        let safetyNetRequireCTSProfileMatch: JSONValue?

        enum CodingKeys: String, CodingKey {
            case allowCrossOrigin = "allow_cross_origin", allowedTopOrigins = "allowed_top_origins"
            case safetyNetRequireCTSProfileMatch = "safetynet_require_cts_profile_match"
        }
    }

    let name: String
    let ceremony: String
    let expected: Expected
    let expectedChallenge: String
    let expectedOrigin: JSONValue
    let expectedRPID: String
    let requireUserVerification: Bool
    let requireUserPresence: Bool?
    let supportedAlgs: [Int]?
    let credentialPublicKey: String?
    let storedSignCount: UInt32?
    let verificationTime: String?
    let attestationRootCerts: [String]?
    let skipChainValidation: Bool?
    let policy: Policy?
    let credential: JSONValue

    var testDescription: String { name }

    enum CodingKeys: String, CodingKey {
        case name, ceremony, expected, policy, credential
        case expectedChallenge = "expected_challenge", expectedOrigin = "expected_origin"
        case expectedRPID = "expected_rp_id", requireUserVerification = "require_user_verification"
        case requireUserPresence = "require_user_presence", supportedAlgs = "supported_algs"
        case credentialPublicKey = "credential_public_key", storedSignCount = "stored_sign_count"
        case verificationTime = "verification_time", attestationRootCerts = "attestation_root_certs"
        case skipChainValidation = "skip_chain_validation"
    }
}
