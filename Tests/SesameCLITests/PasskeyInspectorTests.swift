import Foundation
import SesameAPI
import SesameWebAuthn
import SesameWebAuthnTesting
import Testing

/// `sesame passkey verify-registration | verify-authentication`, run as a real process.
@Suite("sesame passkey inspector")
struct PasskeyInspectorTests {
    static let refusedAsUnsupported = CorpusExpectations.refusedAsUnsupported
    static let needsRevocationData = CorpusExpectations.needsRevocationData

    @Test("every corpus case reaches its expected outcome through the command line")
    func corpus() async throws {
        let cases = try PasskeyCorpus.cases()
        guard !cases.isEmpty else {
            print("⚠️ notice: ../shared/conformance/webauthn/vectors.json not found; passkey inspector corpus cases skipped")
            return
        }
        #expect(cases.count == 135)
        let failures = try await withThrowingTaskGroup(of: String?.self) { group in
            var pending = cases[...]
            var failures: [String] = []
            // A few processes at a time: enough to keep both cores busy while others wait on pipes.
            for _ in 0..<6 {
                guard let next = pending.popFirst() else { break }
                group.addTask { try await Self.check(next) }
            }
            while let result = try await group.next() {
                if let result { failures.append(result) }
                if let next = pending.popFirst() { group.addTask { try await Self.check(next) } }
            }
            return failures
        }
        for failure in failures.sorted() { Issue.record("\(failure)") }
    }

    /// Runs one case; returns a description of the mismatch, or nil when the outcome is the expected one.
    private static func check(_ testCase: InspectorCase) async throws -> String? {
        var files = try testCase.trustAnchors.map { try PasskeyInspector.pemFile([$0]) }
        var arguments = testCase.arguments + files.map { "--trust-anchor=\($0)" }
        let revocation = needsRevocationData.contains(testCase.name)
        if revocation {
            let leaf = try #require(testCase.safetyNetLeafPEM, "no SafetyNet leaf in \(testCase.name)")
            files.append(try PasskeyInspector.pemFile([leaf]))
            arguments.append("--revoked-certificate=\(files.last!)")
        }
        defer { for file in files { try? FileManager.default.removeItem(atPath: file) } }
        let output = try await PasskeyInspector.run(arguments, stdin: testCase.credential)
        let failure = "\(testCase.name): exit \(output.status), stdout \(output.stdout), stderr \(output.stderr)"
        if refusedAsUnsupported.contains(testCase.name) {
            return output.status == 1 && output.stdout.hasPrefix("unsupported_algorithm: ") ? nil : failure
        }
        if revocation {
            return output.status == 1 && output.stdout.hasPrefix("attestation_certificate_revoked: ") ? nil : failure
        }
        guard testCase.outcome == "ok" else {
            return output.status == 1 && isOneLine(output.stdout) ? nil : "expected a failed check; \(failure)"
        }
        guard output.status == 0 else { return "expected ok; \(failure)" }
        return mismatch(testCase, output.stdout).map { "\(testCase.name): \($0)" }
    }

    /// Compares the printed object with `expected`, and the UV/BS flags with the fields derived from them.
    private static func mismatch(_ testCase: InspectorCase, _ stdout: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any],
            let flags = (object["flags"] as? [String: Any])?.mapValues(InspectorCase.describe)
        else { return "not one JSON object with flags: \(stdout)" }
        let printed = object.filter { $0.key != "flags" }.mapValues(InspectorCase.describe)
        var wanted = testCase.expected
        wanted["aaguid"] = wanted["aaguid"]?.lowercased()
        if printed != wanted { return "printed \(printed), expected \(wanted)" }
        guard Set(flags.keys) == ["UP", "UV", "BE", "BS", "AT", "ED"], flags["UV"] == wanted["user_verified"],
            flags["BS"] == wanted["credential_backed_up"]
        else { return "flags \(flags) do not match \(wanted)" }
        return nil
    }

    private static func isOneLine(_ text: String) -> Bool {
        text.hasSuffix("\n") && !text.dropLast().contains("\n") && text.contains(": ")
    }
}

/// Usage errors and the one-line failure report, independent of the corpus.
@Suite("sesame passkey inspector: usage and failures")
struct PasskeyInspectorUsageTests {
    /// A registration response whose client data says challenge AAAA (bytes 00 00 00) and origin
    /// https://example.org; its attestation object is never reached by the checks below.
    static let credential: Data = {
        let clientData = #"{"type":"webauthn.create","challenge":"AAAA","origin":"https://example.org"}"#
        let object: [String: Any] = [
            "id": "AQID", "rawId": "AQID", "type": "public-key",
            "response": [
                "clientDataJSON": Base64URL.encode(Array(clientData.utf8)), "attestationObject": "oA",
                "authenticatorData": "AA", "signature": "AA",
            ],
        ]
        return try! JSONSerialization.data(withJSONObject: object)
    }()

    static let registration = ["verify-registration", "--rp-id=example.org", "--origin=https://example.org"]

    @Test("a failed check prints one line naming the check and why, and exits 1")
    func challengeMismatch() async throws {
        let output = try await PasskeyInspector.run(Self.registration + ["--challenge=AQIDBA"], stdin: Self.credential)
        #expect(output.status == 1)
        #expect(output.stdout == "challenge_mismatch: clientDataJSON.challenge does not match the expected challenge\n")
    }

    @Test("the failure line carries the offending value")
    func originMismatch() async throws {
        let output = try await PasskeyInspector.run(
            ["verify-registration", "--rp-id=example.org", "--origin=https://other.example", "--challenge=AAAA"],
            stdin: Self.credential)
        #expect(output.status == 1)
        #expect(
            output.stdout == "origin_mismatch: clientDataJSON.origin is not one of the allowed origins (https://example.org)\n")
    }

    @Test("verify-authentication refuses registration client data with client_data_type_mismatch")
    func typeMismatch() async throws {
        let output = try await PasskeyInspector.run(
            [
                "verify-authentication", "--rp-id=example.org", "--origin=https://example.org", "--challenge=AAAA",
                "--credential-public-key=pQECAyYgAQ",
            ],
            stdin: Self.credential)
        #expect(output.status == 1)
        #expect(output.stdout.hasPrefix("client_data_type_mismatch: "))
        #expect(output.stdout.filter { $0 == "\n" }.count == 1)
    }

    @Test(
        "usage errors exit 64 with a message on standard error",
        arguments: [
            (["verify-registration", "--rp-id=example.org", "--origin=https://example.org"], "challenge"),
            (
                ["verify-registration", "--rp-id=example.org", "--origin=https://example.org", "--challenge=not*base64"],
                "base64url"
            ),
            (
                PasskeyInspectorUsageTests.registration + ["--challenge=AAAA", "--trust-anchor=/nonexistent/root.pem"],
                "/nonexistent/root.pem"
            ),
            (PasskeyInspectorUsageTests.registration + ["--challenge=AAAA", "--alg=ES999"], "alg"),
            (PasskeyInspectorUsageTests.registration + ["--challenge=AAAA", "--verification-time=yesterday"], "ISO 8601"),
            (["verify-registration", "--rp-id=example.org", "--challenge=AAAA"], "--origin"),
            (
                [
                    "verify-authentication", "--rp-id=example.org", "--origin=https://example.org", "--challenge=AAAA",
                    "--credential-public-key=%%",
                ], "credential-public-key"
            ),
        ])
    func usage(_ arguments: [String], _ mentioned: String) async throws {
        let output = try await PasskeyInspector.run(arguments, stdin: Self.credential)
        #expect(output.status == 64)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.contains(mentioned), "\(output.stderr)")
    }

    @Test("standard input that is not a JSON object is a usage error", arguments: ["", "not json", "[1, 2]"])
    func notJSON(_ input: String) async throws {
        let output = try await PasskeyInspector.run(Self.registration + ["--challenge=AAAA"], stdin: Data(input.utf8))
        #expect(output.status == 64)
        #expect(output.stderr.contains("JSON"), "\(output.stderr)")
    }

    @Test("--help documents the exit statuses and where the result goes")
    func help() async throws {
        for command in ["verify-registration", "verify-authentication"] {
            let output = try await PasskeyInspector.run([command, "--help"], stdin: Data())
            #expect(output.status == 0)
            #expect(output.stdout.contains("exit 1") && output.stdout.contains("64") && output.stdout.contains("standard output"))
        }
    }
}
