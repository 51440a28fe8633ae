import Crypto
import CryptoExtras
import Foundation

/// The crypto bound of this machine, measured in the same run as the benchmark it scales.
enum CryptoBound {
    /// RSA-2048 PKCS#1 v1.5 SHA-256 signatures per second using every core: the cost of one
    /// id_token, the floor under every login.
    static func rsa2048SignsPerSecond(seconds: Double = 2) async throws -> Double {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let message = Data(repeating: 0x42, count: 600)
        return try await parallelRate(seconds: seconds) {
            _ = try key.signature(for: message, padding: .insecurePKCS1v1_5)
        }
    }

    /// Runs `operation` on every core for `seconds` and returns operations per second.
    static func parallelRate(seconds: Double, _ operation: @escaping @Sendable () throws -> Void) async throws -> Double {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let started = ContinuousClock.now
        let deadline = started + .milliseconds(Int(seconds * 1000))
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<cores {
                group.addTask {
                    var count = 0
                    while ContinuousClock.now < deadline {
                        for _ in 0..<10 { try operation() }
                        count += 10
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(total) / (ContinuousClock.now - started).seconds
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
