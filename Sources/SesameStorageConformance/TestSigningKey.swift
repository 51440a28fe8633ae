public import Foundation
public import SesameCore

/// One RSA-2048 signing key for the whole test process, for tests only.
///
/// Every in-process server a test starts would otherwise generate its own key on its first
/// start, and RSA key generation is a third of the Swift suites' CPU time: hundreds of servers
/// each search for two 1024-bit primes. On a 2-core machine that load delays every other
/// test's awaits by tens of seconds. The servers are separate, so sharing one key between them
/// changes nothing a test checks; tests of key generation and rotation make their own keys.
public enum TestSigningKey {
    /// Generated once, on first use.
    private static let shared: SigningKeyRecord = {
        do {
            return try TokenSigner.generateKey(at: Date(timeIntervalSince1970: 0))
        } catch {
            fatalError("RSA key generation failed: \(error)")
        }
    }()

    /// Stores the shared key as `storage`'s first signing key, created at `now`, unless it
    /// already has one: then the server's first start finds it and generates none.
    public static func preload(_ storage: any SesameStorage, at now: Date) async throws {
        guard try await storage.signingKeys().isEmpty else { return }
        var record = shared
        record.createdAt = now
        record.activeFrom = now
        try await storage.addSigningKey(record)
    }
}
