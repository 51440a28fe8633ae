import Crypto
import CryptoExtras
import Foundation
import Testing

@testable import SesameCore

@Suite("Device public keys parsed once")
struct DevicePublicKeyCacheTests {
    @Test("a cached key verifies what a freshly parsed key verifies, and nothing else")
    func sameKey() throws {
        let cache = DevicePublicKeyCache()
        let privateKey = P256.Signing.PrivateKey()
        let der = Array(privateKey.publicKey.derRepresentation)
        let message = Array("header.payload".utf8)
        let signature = Array(try privateKey.signature(for: message).rawRepresentation)
        for _ in 0..<2 {
            let key = try cache.key(der: der, policy: DeviceKeyPolicy())
            #expect(key.isValidSignature(signature, for: message))
            #expect(!key.isValidSignature(signature, for: Array("header.other".utf8)))
        }
        let other = Array(P256.Signing.PrivateKey().publicKey.derRepresentation)
        #expect(!(try cache.key(der: other, policy: DeviceKeyPolicy())).isValidSignature(signature, for: message))
    }

    /// The attack: a 1024-bit key registered while the legacy switch was on keeps signing in
    /// after an operator turns the switch off, because its parsed form was kept.
    @Test("a key parsed under a policy that admitted it is refused once the policy does not")
    func policyRecheckedOnEveryUse() throws {
        let cache = DevicePublicKeyCache()
        let der = Array(try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)).publicKey.derRepresentation)
        var legacy = DeviceKeyPolicy()
        legacy.allowRSA1024 = true
        #expect(try cache.key(der: der, policy: legacy).bits == 1024)
        #expect(throws: SesameError.self) { try cache.key(der: der, policy: DeviceKeyPolicy()) }
        #expect(try cache.key(der: der, policy: legacy).bits == 1024)
    }

    @Test("bytes that are not a key are refused every time, and a full cache starts over")
    func refusalsAndBound() throws {
        let cache = DevicePublicKeyCache(capacity: 2)
        for _ in 0..<2 {
            #expect(throws: SesameError.self) { try cache.key(der: [0x30, 0x03, 0x02, 0x01, 0x01], policy: DeviceKeyPolicy()) }
        }
        let keys = (0..<5).map { _ in P256.Signing.PrivateKey() }
        for key in keys + keys {
            let parsed = try cache.key(der: Array(key.publicKey.derRepresentation), policy: DeviceKeyPolicy())
            #expect(parsed.spkiDER == Array(key.publicKey.derRepresentation))
        }
    }
}
