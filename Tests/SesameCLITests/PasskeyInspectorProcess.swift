import Foundation
import SesameAPI
import SesameWebAuthn

/// Runs `sesame passkey …` with a credential on standard input, off the cooperative thread pool
/// so that many runs can be in flight at once.
enum PasskeyInspector {
    /// Writing stdin to a command that already exited (a usage error) must not kill the test runner.
    private static let ignoreBrokenPipe: Void = { signal(SIGPIPE, SIG_IGN) }()

    static func run(_ arguments: [String], stdin: Data) async throws -> Sesame.Output {
        _ = ignoreBrokenPipe
        return try await offPool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Sesame.binary)
            process.arguments = ["passkey"] + arguments
            return try Sesame.collect(process, stdin: stdin)
        }
    }

    /// A PEM file holding `certificates` (PEM text or DER bytes), removed by the caller.
    static func pemFile(_ certificates: [String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-pem-\(UUID().uuidString).pem").path
        try certificates.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// PEM text for DER bytes.
    static func pem(der: [UInt8]) -> String {
        let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }
}

/// The shared WebAuthn conformance corpus, `<package root>/../shared/conformance/webauthn/vectors.json`,
/// read in place (never copied). `SESAME_SHARED_DIR` overrides the location.
enum PasskeyCorpus {
    static let url: URL? = {
        let relative = "conformance/webauthn/vectors.json"
        var candidates: [URL] = []
        if let shared = ProcessInfo.processInfo.environment["SESAME_SHARED_DIR"] {
            candidates.append(URL(fileURLWithPath: shared).appendingPathComponent(relative))
        }
        for root in [Sesame.packageRoot, Sesame.packageRoot.resolvingSymlinksInPath()] {
            candidates.append(root.appendingPathComponent("../shared/\(relative)").standardizedFileURL)
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
    }()

    /// Every case, or none when the corpus is absent.
    static func cases() throws -> [InspectorCase] {
        guard let url else { return [] }
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        return try (file?["cases"] as? [[String: Any]] ?? []).map(InspectorCase.init)
    }
}

/// One corpus case translated into `sesame passkey` flags (the case schema: ``ConformanceCase``).
struct InspectorCase: Sendable {
    let name: String
    let isRegistration: Bool
    /// Flags implied by the case's options; trust anchors are added per run as files.
    let arguments: [String]
    let trustAnchors: [String]
    let credential: Data
    let outcome: String
    /// `expected` members other than outcome/reason, as JSON-value descriptions.
    let expected: [String: String]

    init(_ json: [String: Any]) throws {
        name = json["name"] as? String ?? "?"
        isRegistration = json["ceremony"] as? String == "registration"
        credential = try JSONSerialization.data(withJSONObject: json["credential"] ?? [:])
        trustAnchors = json["attestation_root_certs"] as? [String] ?? []
        let expectedObject = json["expected"] as? [String: Any] ?? [:]
        outcome = expectedObject["outcome"] as? String ?? "?"
        expected = expectedObject.filter { $0.key != "outcome" && $0.key != "reason" }
            .mapValues { Self.describe($0) }
        arguments = Self.flags(json, isRegistration: isRegistration)
    }

    private static func flags(_ json: [String: Any], isRegistration: Bool) -> [String] {
        var flags = [isRegistration ? "verify-registration" : "verify-authentication"]
        flags.append("--challenge=\(json["expected_challenge"] as? String ?? "")")
        flags.append("--rp-id=\(json["expected_rp_id"] as? String ?? "")")
        let origins = (json["expected_origin"] as? [String]) ?? [json["expected_origin"] as? String ?? ""]
        flags += origins.map { "--origin=\($0)" }
        if json["require_user_verification"] as? Bool == true { flags.append("--require-user-verification") }
        flags += (json["supported_algs"] as? [Int] ?? []).map { "--alg=\($0)" }
        let policy = json["policy"] as? [String: Any] ?? [:]
        if policy["allow_cross_origin"] as? Bool == true { flags.append("--allow-cross-origin") }
        flags += (policy["allowed_top_origins"] as? [String] ?? []).map { "--top-origin=\($0)" }
        if isRegistration {
            if json["require_user_presence"] as? Bool == false { flags.append("--no-require-user-presence") }
            if let time = json["verification_time"] as? String { flags.append("--verification-time=\(time)") }
            if json["skip_chain_validation"] as? Bool == true { flags.append("--no-chain-validation") }
            // `{"__undefined": true}` means "library default", which requires ctsProfileMatch.
            if policy["safetynet_require_cts_profile_match"] as? Bool == false { flags.append("--no-require-cts-profile-match") }
        } else {
            flags.append("--credential-public-key=\(json["credential_public_key"] as? String ?? "")")
            flags.append("--sign-count=\(json["stored_sign_count"] as? Int ?? 0)")
        }
        return flags
    }

    /// A JSON value's description, the same for the corpus and the command's output.
    static func describe(_ value: Any) -> String {
        if let text = value as? String { return text }
        return String(describing: value)
    }

    /// The SafetyNet leaf certificate inside the attestation object: the first `x5c` entry of the
    /// JWS header (the corpus case that needs revocation data relies on it).
    var safetyNetLeafPEM: String? {
        guard let object = try? JSONSerialization.jsonObject(with: credential) as? [String: Any],
            let response = object["response"] as? [String: Any],
            let attestation = (response["attestationObject"] as? String).flatMap(Base64URL.decodeTolerant)
        else { return nil }
        let text = String(decoding: attestation.map { $0 < 0x80 ? $0 : 0x20 }, as: UTF8.self)
        guard let start = text.range(of: "eyJ") else { return nil }
        let jwsCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
        let jws = text[start.lowerBound...].prefix { jwsCharacters.contains($0) }
        guard let header = jws.split(separator: ".").first.flatMap({ Base64URL.decode(String($0)) }),
            let headerObject = try? JSONSerialization.jsonObject(with: Data(header)) as? [String: Any],
            let leaf = (headerObject["x5c"] as? [String])?.first.flatMap(Base64URL.decodeTolerant)
        else { return nil }
        return PasskeyInspector.pem(der: leaf)
    }
}
