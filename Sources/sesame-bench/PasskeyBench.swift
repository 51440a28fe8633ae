import ArgumentParser
import Crypto
import Foundation
import SesameWebAuthn
import Synchronization

/// `sesame-bench passkey`: passkey assertion verifications per second in process, reported
/// against the raw P-256 ECDSA verify rate measured on the same cores in the same run.
struct PasskeyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey",
        abstract: "Passkey (ES256) assertion verifications per second, as a share of the P-256 verify bound.",
        discussion: """
            Both rates use one task per core. An assertion verification is the full §7.2 check \
            (WebAuthnRelyingParty.verifyAuthentication over a decoded credential: client data, \
            rpIdHash, flags, COSE key, signature, counter); the bound verifies a P-256 ECDSA \
            signature over a message of the same size (authenticatorData ‖ SHA-256(clientDataJSON)). \
            The budget is 80 % of the bound.
            """)

    @Option(help: "Seconds for each of the two measurements.") var duration = 5.0
    @Flag(help: "Print one JSON object: assertions_per_second, p256_verifies_per_second, ratio.") var json = false

    func validate() throws {
        if duration <= 0 { throw ValidationError("--duration must be positive") }
    }

    func run() async throws {
        let authenticator = BenchAuthenticator()
        let assertions = try (0..<64).map { _ in try authenticator.assertion() }
        let key = authenticator.coseKey
        let relyingParty = WebAuthnRelyingParty(rpID: BenchAuthenticator.rpID, allowedOrigins: [BenchAuthenticator.origin])
        // Every assertion must verify before anything is timed.
        for assertion in assertions { _ = try Self.verify(assertion, relyingParty: relyingParty, key: key) }

        let bound = try await Self.p256Bound(authenticator, message: assertions[0], seconds: duration)
        let counter = Counter(assertions.count)
        let rate = try await CryptoBound.parallelRate(seconds: duration) {
            _ = try Self.verify(assertions[counter.next()], relyingParty: relyingParty, key: key)
        }
        let report = PasskeyReport(assertionsPerSecond: rate, p256VerifiesPerSecond: bound)
        print(json ? try report.json() : report.text)
    }

    private static func verify(
        _ assertion: BenchAuthenticator.Assertion,
        relyingParty: WebAuthnRelyingParty,
        key: [UInt8]
    ) throws -> VerifiedAuthentication {
        try relyingParty.verifyAuthentication(
            credential: assertion.credential, expectedChallenge: assertion.challenge, credentialPublicKey: key,
            storedSignCount: 0)
    }

    /// P-256 ECDSA verifications per second of a DER signature over a message as long as the one an
    /// assertion signs (37-byte authenticatorData ‖ 32-byte client data hash).
    private static func p256Bound(
        _ authenticator: BenchAuthenticator,
        message assertion: BenchAuthenticator.Assertion,
        seconds: Double
    ) async throws -> Double {
        let response = assertion.credential.response
        let message = response.authenticatorData + Array(SHA256.hash(data: response.clientDataJSON))
        let publicKey = authenticator.privateKey.publicKey
        let signature = try P256.Signing.ECDSASignature(derRepresentation: response.signature)
        guard publicKey.isValidSignature(signature, for: message) else { throw BenchError("bound signature does not verify") }
        return try await CryptoBound.parallelRate(seconds: seconds) {
            guard publicKey.isValidSignature(signature, for: message) else { throw BenchError("verify failed") }
        }
    }
}

/// A round-robin index into the pre-generated assertions, shared by the measuring tasks.
private final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    private let count: Int

    init(_ count: Int) { self.count = count }

    func next() -> Int {
        let (_, new) = value.wrappingAdd(1, ordering: .relaxed)
        return (new & Int.max) % count
    }
}

/// What `passkey` prints, as text or one JSON object.
struct PasskeyReport: Encodable {
    let assertionsPerSecond: Double
    let p256VerifiesPerSecond: Double
    var ratio: Double { assertionsPerSecond / p256VerifiesPerSecond }

    enum CodingKeys: String, CodingKey {
        case assertionsPerSecond = "assertions_per_second", p256VerifiesPerSecond = "p256_verifies_per_second", ratio
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(assertionsPerSecond, forKey: .assertionsPerSecond)
        try container.encode(p256VerifiesPerSecond, forKey: .p256VerifiesPerSecond)
        try container.encode(ratio, forKey: .ratio)
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    var text: String {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        return """
            passkey assertion verifications (ES256, in process, \(cores) cores): \(String(format: "%.1f", assertionsPerSecond)) /s
            P-256 ECDSA verify bound (same message size, \(cores) cores, same run): \(String(format: "%.1f", p256VerifiesPerSecond)) /s
            ratio to the bound: \(String(format: "%.1f", ratio * 100)) %  (budget ≥ 80 %)
            """
    }
}
