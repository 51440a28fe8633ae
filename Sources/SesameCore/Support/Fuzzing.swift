import Foundation
import SesameAPI

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
        // The claims' fast reader must agree with `JSONDecoder` on every input: a difference
        // is a claim trusted as something other than what was signed.
        let fast = JSONObjectReader.members(bytes).flatMap(DeviceJWTClaims.init)
        if let fast {
            let decoded = try? JSONDecoder().decode(DeviceJWTClaims.self, from: Data(bytes))
            precondition(decoded.map { "\($0)" } == "\(fast)", "device JWT claims read unlike JSONDecoder")
        }
        _ = try? DevicePublicKey.parse(text: text, policy: policy)
        if let jwk = try? JSONDecoder().decode([String: String].self, from: Data(bytes)) {
            _ = try? DevicePublicKey.parse(jwk: jwk, policy: policy)
        }
    }

    /// Reads `bytes` as an uploaded users file, in two pieces split where the first byte says
    /// (as a request body arrives), checking each user as it completes; then as a stored file,
    /// a user at a time, as a job reads it.
    public static func usersFile(_ bytes: [UInt8]) {
        var upload = UsersUpload()
        let split = bytes.first.map { min(Int($0), bytes.count) } ?? 0
        for piece in [bytes[..<split], bytes[split...]] {
            guard (try? upload.append(piece)) != nil else { break }
        }
        _ = try? upload.finish()
        var file = UsersFile(Data(bytes))
        while (try? file.next()) != nil {}
    }

    /// The most permissive policy, so that 1024-bit RSA keys reach the same code as others.
    private static let policy: DeviceKeyPolicy = {
        var policy = DeviceKeyPolicy()
        policy.allowRSA1024 = true
        return policy
    }()
}
