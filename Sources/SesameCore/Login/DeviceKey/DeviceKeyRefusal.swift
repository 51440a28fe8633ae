import Foundation

/// Why a device-key assertion was refused. Each reason has the description clients see
/// (Auth0's `invalid_grant` shape); the refusal also carries the user, when known, for the audit log.
struct DeviceKeyRefusal: Error, Sendable {
    enum Reason: String, Sendable {
        case malformed, missingKID, unknownDevice, wrongUser, wrongApplication, wrongConnection, fingerprint
        case algorithm, badSignature, missingTimes, lifetime, future, expired, audience, missingJTI, replayed, nonce
    }

    let reason: Reason
    var userID: String?
    var detail: String?

    init(_ reason: Reason, userID: String? = nil, detail: String? = nil) {
        self.reason = reason
        self.userID = userID
        self.detail = detail
    }

    var error: SesameError {
        .invalidGrant(
            Self.descriptions[reason] ?? "Invalid assertion.",
            logDetail: "device key: \(reason.rawValue)" + (detail.map { ": \($0)" } ?? ""))
    }

    static let descriptions: [Reason: String] = [
        .malformed: "The assertion is not a well-formed JWT.",
        .missingKID: "The assertion header must carry the device credential id in kid.",
        .unknownDevice: "Unknown device: no such device credential for this user and application.",
        .wrongUser: "The device key does not belong to the user the assertion names.",
        .wrongApplication: "Unknown device: no such device credential for this user and application.",
        .wrongConnection: "The connection does not match the user's connection.",
        .fingerprint: "The assertion's sub is not the fingerprint of the device key.",
        .algorithm: "The assertion's alg does not match the device key (ES256 for P-256 keys, RS256 for RSA keys).",
        .badSignature: "Invalid signature: the assertion was not signed by the registered device key.",
        .missingTimes: "The assertion must carry numeric iat and exp claims.",
        .lifetime: "The assertion may live at most 60 seconds (exp - iat).",
        .future: "The assertion was issued in the future (check the device clock).",
        .expired: "The assertion has expired.",
        .audience: "The assertion's aud must be this server's issuer URL.",
        .missingJTI: "The assertion must carry a jti claim.",
        .replayed: "The assertion has already been used (replayed jti).",
        .nonce: "The assertion's nonce is missing, expired or already used: get a new one from /device-key/challenge.",
    ]
}
