import Foundation

/// Entry points for the `sesame-fuzz` harness (docs/fuzzing.md), not API.
///
/// Each function runs one parser over untrusted bytes and discards the result: a thrown error is
/// a correct refusal, while a trap, a leak or a hang is a bug the fuzzer reports.
@_spi(Fuzzing) public enum WebAuthnFuzzing {
    /// Decodes `bytes` as one CBOR item and, when it is a map, as a COSE_Key.
    public static func cbor(_ bytes: [UInt8]) {
        guard let value = try? CBORDecoder().decode(bytes[...]) else { return }
        _ = try? COSEKey(cbor: value)
    }

    /// Reads `bytes` as clientDataJSON.
    public static func clientData(_ bytes: [UInt8]) {
        _ = try? CollectedClientData(bytes: bytes)
    }

    /// Reads `bytes` as a 32-byte clientDataHash followed by an attestation object, then runs
    /// every format's statement procedure on it. The hash comes from the input so that seeds
    /// taken from real ceremonies pass their signature checks, and mutations of the parts no
    /// signature covers (certificate extensions, TPM structures) reach the parsers behind them.
    /// The whole input is also parsed as bare authenticator data.
    public static func attestation(_ bytes: [UInt8]) {
        _ = try? AuthenticatorData(bytes: bytes)
        guard bytes.count > hashLength,
            let object = try? AttestationObject(bytes: Array(bytes.dropFirst(hashLength))),
            let attested = object.authenticatorData.attestedCredential,
            let key = try? COSEKey(cbor: attested.publicKey)
        else { return }
        for format in AttestationFormat.allCases {
            let input = AttestationInput(
                statement: object.statement, authenticatorData: object.authenticatorData, attestedCredential: attested,
                credentialKey: key, clientDataHash: Array(bytes.prefix(hashLength)), relyingParty: relyingParty,
                verificationTime: verificationTime
            )
            _ = try? format.verifier.verify(input)
        }
    }

    private static let hashLength = 32
    private static let relyingParty = WebAuthnRelyingParty(rpID: "example.org", allowedOrigins: ["https://example.org"])
    /// A fixed time keeps runs reproducible; SafetyNet freshness is judged against it.
    private static let verificationTime = Date(timeIntervalSince1970: 1_700_000_000)
}
