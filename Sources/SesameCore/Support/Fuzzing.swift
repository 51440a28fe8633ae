import Foundation

/// Entry points for the `sesame-fuzz` harness (docs/fuzzing.md), not API.
///
/// Each function runs one parser over untrusted bytes and discards the result: a thrown error is
/// a correct refusal, while a trap, a leak or a hang is a bug the fuzzer reports.
@_spi(Fuzzing) public enum CoreFuzzing {
    /// Parses `bytes` as a device assertion (compact JWS) and as a device public key, both as
    /// text (PEM, base64 PEM, base64 DER) and, when the bytes are a JSON object of strings, as a JWK.
    public static func deviceJWT(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? DeviceJWT.parse(text)
        _ = try? DevicePublicKey.parse(text: text, policy: policy)
        if let jwk = try? JSONDecoder().decode([String: String].self, from: Data(bytes)) {
            _ = try? DevicePublicKey.parse(jwk: jwk, policy: policy)
        }
    }

    /// The most permissive policy, so that 1024-bit RSA keys reach the same code as others.
    private static let policy: DeviceKeyPolicy = {
        var policy = DeviceKeyPolicy()
        policy.allowRSA1024 = true
        return policy
    }()
}
