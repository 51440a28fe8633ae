import Crypto
import Foundation
import SesameAPI
import X509

/// §8.5 `android-safetynet`: `{ver, response}` where `response` is a compact JWS.
enum SafetyNetAttestation: AttestationVerifier {
    static let attestationHostname = "attest.android.com"

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        guard let version = input.statement[text: "ver"]?.textValue, !version.isEmpty else {
            throw WebAuthnError.malformedAttestationStatement.with(detail: "ver missing")
        }
        let jws = try SafetyNetJWS(bytes: try input.statement.statementBytes("response"))
        let leaf = jws.certificates[0]
        // Step 4: the JWS was signed by attest.android.com.
        guard isAttestationHost(leaf) else {
            throw WebAuthnError.attestationCertificateInvalid.with(detail: "leaf is not attest.android.com")
        }
        guard try VerificationKey(certificate: leaf).isValidSignature(jws.signature, for: jws.signingInput, algorithm: .rs256)
        else { throw WebAuthnError.attestationSignatureInvalid }
        try checkPayload(jws.payload, input: input)
        return AttestationOutcome(type: .basic, trustPath: jws.certificates)
    }

    /// Step 3 and the SafetyNet API rules: nonce, integrity verdicts and freshness.
    private static func checkPayload(_ payload: SafetyNetJWS.Payload, input: AttestationInput) throws(WebAuthnError) {
        let nonce = Base64URL.encodeStandard(SHA256.hash(data: input.signedData))
        guard payload.nonce == nonce else { throw WebAuthnError.attestationNonceMismatch }
        guard payload.basicIntegrity == true else {
            throw WebAuthnError.safetyNetIntegrityFailed.with(detail: "basicIntegrity is false")
        }
        if input.relyingParty.requireCTSProfileMatch, payload.ctsProfileMatch != true {
            throw WebAuthnError.safetyNetIntegrityFailed.with(detail: "ctsProfileMatch is false")
        }
        let issued = Date(timeIntervalSince1970: payload.timestampMs / 1000)
        let distance = abs(issued.timeIntervalSince(input.verificationTime))
        guard distance <= input.relyingParty.safetyNetTimestampTolerance else {
            // timestampMs is chosen by whoever signs the JWS (any self-signed attest.android.com leaf
            // gets here, before chain validation), so the distance may be beyond Int's range, where
            // Int(_:) traps: it is rounded and printed as a Double instead.
            throw WebAuthnError.safetyNetTimestampInvalid.with(detail: "\(distance.rounded()) s from verification time")
        }
    }

    private static func isAttestationHost(_ certificate: Certificate) -> Bool {
        if certificate.subjectValues(AttestationOID.commonName).contains(attestationHostname) { return true }
        guard let names = try? certificate.extensions.subjectAlternativeNames else { return false }
        return names.contains { name in
            if case .dnsName(let host) = name { return host == attestationHostname }
            return false
        }
    }
}

/// A compact JWS (RFC 7515) from the SafetyNet attestation API.
struct SafetyNetJWS {
    struct Header: Decodable {
        let alg: String
        let x5c: [String]
    }

    struct Payload: Decodable {
        let nonce: String
        let timestampMs: Double
        let ctsProfileMatch: Bool?
        let basicIntegrity: Bool?
    }

    let certificates: [Certificate]
    let payload: Payload
    let signature: [UInt8]
    /// `base64url(header) "." base64url(payload)`, the bytes the signature covers.
    let signingInput: [UInt8]

    init(bytes: [UInt8]) throws(WebAuthnError) {
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let headerJSON = Base64URL.decodeTolerant(String(decoding: parts[0], as: UTF8.self)),
            let payloadJSON = Base64URL.decodeTolerant(String(decoding: parts[1], as: UTF8.self)),
            let signature = Base64URL.decodeTolerant(String(decoding: parts[2], as: UTF8.self)),
            let header = try? JSONDecoder().decode(Header.self, from: Data(headerJSON)),
            let payload = try? JSONDecoder().decode(Payload.self, from: Data(payloadJSON))
        else { throw WebAuthnError.malformedAttestationStatement.with(detail: "response is not a compact JWS") }
        // Only RS256 is in use by the SafetyNet API.
        guard header.alg == "RS256", !header.x5c.isEmpty else {
            throw WebAuthnError.unsupportedAlgorithm.with(detail: "SafetyNet JWS alg \(header.alg)")
        }
        // The JWS header x5c is standard base64 (RFC 7515 §4.1.6); the decoder accepts both alphabets.
        let ders = header.x5c.compactMap(Base64URL.decodeTolerant)
        guard ders.count == header.x5c.count else {
            throw WebAuthnError.malformedAttestationStatement.with(detail: "x5c is not base64")
        }
        self.certificates = try AttestationCertificates.parseChain(ders)
        self.payload = payload
        self.signature = signature
        self.signingInput = Array(bytes[..<(parts[1].endIndex)])
    }
}
