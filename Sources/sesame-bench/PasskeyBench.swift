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
            One task per core alternates an assertion verification and a bound verification and \
            times each; rates are from the median times (robust to other load on the machine), \
            summed over the cores. An assertion verification is the \
            full §7.2 check (WebAuthnRelyingParty.verifyAuthentication over a decoded credential: \
            client data, rpIdHash, flags, DER signature parsing, signature, counter) with the stored \
            key decoded once (CredentialPublicKey), or on every call with --decode-key-each-time; \
            the bound verifies a P-256 ECDSA signature over a message of the same size \
            (authenticatorData ‖ SHA-256(clientDataJSON)). The budget is 80 % of the bound.
            """)

    @Option(help: "Seconds of measurement.") var duration = 10.0
    @Flag(help: "Decode the stored COSE_Key bytes on every verification instead of once (a server that does not cache keys).")
    var decodeKeyEachTime = false
    @Flag(help: "Print one JSON object: assertions_per_second, p256_verifies_per_second, ratio.") var json = false

    func validate() throws {
        if duration <= 0 { throw ValidationError("--duration must be positive") }
    }

    func run() async throws {
        let report = try await measure()
        print(json ? try report.json() : report.text)
    }

    func measure() async throws -> PasskeyReport {
        let authenticator = BenchAuthenticator()
        let assertions = try (0..<64).map { _ in try authenticator.assertion() }
        let storedKey = authenticator.coseKey
        let parsedKey = try CredentialPublicKey(cose: storedKey)
        let relyingParty = WebAuthnRelyingParty(rpID: BenchAuthenticator.rpID, allowedOrigins: [BenchAuthenticator.origin])
        let decodeEachTime = decodeKeyEachTime
        let verify: @Sendable (BenchAuthenticator.Assertion) throws -> Void = { assertion in
            if decodeEachTime {
                _ = try Self.verify(assertion, relyingParty: relyingParty, key: storedKey)
            } else {
                _ = try relyingParty.verifyAuthentication(
                    credential: assertion.credential, expectedChallenge: assertion.challenge,
                    credentialPublicKey: parsedKey, storedSignCount: 0)
            }
        }
        // Every assertion must verify before anything is timed.
        for assertion in assertions { try verify(assertion) }

        let bound = try Self.p256Bound(authenticator, message: assertions[0])
        let counter = Counter(assertions.count)
        let (rate, boundRate) = try await Self.interleavedRates(seconds: duration) {
            try verify(assertions[counter.next()])
        } bound: {
            try bound()
        }
        return PasskeyReport(
            assertionsPerSecond: rate, p256VerifiesPerSecond: boundRate,
            keyDecoding: decodeEachTime
                ? "decoded from COSE_Key bytes on every verification" : "decoded once (CredentialPublicKey)")
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

    /// One P-256 ECDSA verification of a signature (already parsed from DER) over a message as
    /// long as the one an assertion signs (37-byte authenticatorData ‖ 32-byte client data hash).
    private static func p256Bound(
        _ authenticator: BenchAuthenticator,
        message assertion: BenchAuthenticator.Assertion
    ) throws -> @Sendable () throws -> Void {
        let response = assertion.credential.response
        let message = response.authenticatorData + Array(SHA256.hash(data: response.clientDataJSON))
        let publicKey = authenticator.privateKey.publicKey
        let signature = try P256.Signing.ECDSASignature(derRepresentation: response.signature)
        return {
            guard publicKey.isValidSignature(signature, for: message) else { throw BenchError("P-256 verify failed") }
        }
    }

    /// Runs one task per core; each alternates one `measured` and one `bound` operation and times
    /// each. Rates come from the median operation time per core, summed over the cores: other
    /// processes on the machine preempt a few operations for milliseconds, which would swamp a
    /// mean, while the median stays the CPU cost of one operation.
    static func interleavedRates(
        seconds: Double,
        _ measured: @escaping @Sendable () throws -> Void,
        bound: @escaping @Sendable () throws -> Void
    ) async throws -> (measured: Double, bound: Double) {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(seconds * 1000))
        return try await withThrowingTaskGroup(of: (Double, Double).self) { group in
            for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
                group.addTask {
                    var measuredTimes: [Double] = []
                    var boundTimes: [Double] = []
                    measuredTimes.reserveCapacity(1 << 18)
                    boundTimes.reserveCapacity(1 << 18)
                    while clock.now < deadline {
                        let start = clock.now
                        try measured()
                        let middle = clock.now
                        try bound()
                        boundTimes.append((clock.now - middle).seconds)
                        measuredTimes.append((middle - start).seconds)
                    }
                    return (1 / median(measuredTimes), 1 / median(boundTimes))
                }
            }
            return try await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .infinity : sorted[sorted.count / 2]
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
    /// How the stored credential key reaches the verifier (text output only).
    let keyDecoding: String
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
            stored credential key: \(keyDecoding)
            """
    }
}
