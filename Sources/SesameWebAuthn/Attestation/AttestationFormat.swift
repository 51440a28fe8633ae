/// Attestation statement formats (§8, IANA "WebAuthn Attestation Statement Format Identifiers").
public enum AttestationFormat: String, Sendable, Hashable, CaseIterable {
    /// §8.7: no attestation.
    case none
    /// §8.2: packed, with x5c (basic / AttCA) or without (self).
    case packed
    /// §8.3: TPM 2.0 (AttCA).
    case tpm
    /// §8.4: Android key attestation.
    case androidKey = "android-key"
    /// §8.5: Android SafetyNet (deprecated by Google, still verifiable).
    case androidSafetyNet = "android-safetynet"
    /// §8.6: FIDO U2F.
    case fidoU2F = "fido-u2f"
    /// §8.8: Apple anonymous attestation.
    case apple
}

/// The parsed attestation object (§6.5): `{fmt, attStmt, authData}`.
struct AttestationObject: Sendable {
    let format: String
    let statement: CBORMap
    let authenticatorData: AuthenticatorData

    /// §7.1 step 12: CBOR-decode the attestation object. Anything but a map with a text `fmt`,
    /// a map `attStmt` and a byte string `authData` (and nothing after it) is malformed.
    init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do { value = try CBORDecoder().decode(bytes[...]) } catch {
            throw WebAuthnError.malformedAttestationObject.with(detail: error.reason)
        }
        guard let map = value.mapValue, let format = map[text: "fmt"]?.textValue,
            let statement = map[text: "attStmt"]?.mapValue, let authData = map[text: "authData"]?.bytesValue
        else { throw WebAuthnError.malformedAttestationObject.with(detail: "fmt, attStmt or authData missing") }
        self.format = format
        self.statement = statement
        self.authenticatorData = try AuthenticatorData(bytes: authData)
    }
}
