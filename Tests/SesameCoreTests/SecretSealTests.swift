import Foundation
import Testing

@testable import SesameCore

@Suite("Envelope sealing of stored secrets")
struct SecretSealTests {
    let master = MasterKey(encoded: Data(repeating: 1, count: 32).base64EncodedString())!

    @Test("master keys are read from base64 or hex of 32 bytes, and nothing else")
    func masterKeys() {
        let bytes = Data((0..<32).map { UInt8($0) })
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        #expect(MasterKey(encoded: bytes.base64EncodedString())?.id == MasterKey(encoded: hex)?.id)
        #expect(MasterKey(encoded: "  \(hex)\n") != nil)
        #expect(MasterKey(encoded: "") == nil)
        #expect(MasterKey(encoded: Data(repeating: 1, count: 16).base64EncodedString()) == nil)
        #expect(MasterKey(encoded: String(repeating: "zz", count: 32)) == nil)
        #expect(MasterKey(encoded: Data(repeating: 2, count: 32).base64EncodedString())?.id != master.id)
    }

    @Test("a sealed value opens under the same data key and context, after the data key is unwrapped again")
    func roundTrip() throws {
        let (seal, wrapped) = try SecretSeal.create(under: master, random: SystemRandomSource())
        let sealed = try seal.sealText("-----BEGIN PRIVATE KEY-----", context: "signing_keys.private_key_pem")
        #expect(SecretSeal.isSealed(sealed) && !sealed.contains("PRIVATE"))
        let again = try SecretSeal.unwrap(wrapped, under: master, storedKeyID: master.id)
        #expect(try again.openText(sealed, context: "signing_keys.private_key_pem") == "-----BEGIN PRIVATE KEY-----")
        let bytes = try seal.seal([1, 2, 3], context: "hmac_secrets.secret")
        #expect(SecretSeal.isSealed(bytes) && !SecretSeal.isSealed([1, 2, 3]))
        #expect(try again.open(bytes, context: "hmac_secrets.secret") == [1, 2, 3])
    }

    /// The attack: with write access to the database but not the key, move a sealed value into
    /// another column (a client secret the attacker set into the signing key's place) or flip
    /// its bits, hoping the server uses what comes out.
    @Test("a sealed value moved to another column, or changed, does not open")
    func movedOrChanged() throws {
        let (seal, _) = try SecretSeal.create(under: master, random: SystemRandomSource())
        let sealed = try seal.sealText("secret", context: "applications.client_secret")
        #expect(throws: SealError.self) { try seal.openText(sealed, context: "signing_keys.private_key_pem") }
        var bytes = try seal.seal([1, 2, 3], context: "hmac_secrets.secret")
        bytes[bytes.count - 1] ^= 1
        #expect(throws: SealError.self) { try seal.open(bytes, context: "hmac_secrets.secret") }
    }

    @Test("another master key does not unwrap the data key, and a rewrapped key opens only under the new one")
    func wrongAndRotatedKeys() throws {
        let other = MasterKey(encoded: Data(repeating: 2, count: 32).base64EncodedString())!
        let (seal, wrapped) = try SecretSeal.create(under: master, random: SystemRandomSource())
        #expect(throws: SealError.wrongMasterKey(expected: master.id, given: other.id)) {
            try SecretSeal.unwrap(wrapped, under: other, storedKeyID: master.id)
        }
        let rewrapped = try seal.rewrapped(under: other)
        let opened = try SecretSeal.unwrap(rewrapped, under: other, storedKeyID: other.id)
        #expect(try opened.open(try seal.seal([4], context: "c"), context: "c") == [4])
        #expect(throws: SealError.self) { try SecretSeal.unwrap(rewrapped, under: master, storedKeyID: other.id) }
    }
}
