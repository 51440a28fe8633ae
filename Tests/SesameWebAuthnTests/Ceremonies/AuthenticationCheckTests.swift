import Foundation
import SesameWebAuthn
import SesameWebAuthnTesting
import Testing

/// One test per §7.2 check: a valid fixture with exactly one mutation must fail with that check's error.
@Suite("Authentication checks (§7.2)")
struct AuthenticationCheckTests {
    private func verify(
        _ mutate: (inout AuthenticationFixture) -> Void,
        storedSignCount: UInt32 = 0,
        storedBackupEligible: Bool? = nil,
        storedKey: [UInt8]? = nil,
        relyingParty configure: (inout WebAuthnRelyingParty) -> Void = { _ in }
    ) throws -> VerifiedAuthentication {
        var fixture = AuthenticationFixture()
        mutate(&fixture)
        var relyingParty = WebAuthnRelyingParty.fixture
        configure(&relyingParty)
        return try relyingParty.verifyAuthentication(
            credential: try fixture.build(), expectedChallenge: Array(100..<132),
            credentialPublicKey: try storedKey ?? fixture.storedKey, storedSignCount: storedSignCount,
            storedBackupEligible: storedBackupEligible)
    }

    @Test("the unmutated fixture passes") func baseline() throws {
        let result = try verify { _ in }
        #expect(result.newSignCount == 1)
    }

    @Test("step 11: type must be webauthn.get") func clientDataType() {
        #expect(throws: WebAuthnError.clientDataTypeMismatch) { try verify { $0.clientData.type = "webauthn.create" } }
    }

    @Test("step 12: challenge must match") func challenge() {
        #expect(throws: WebAuthnError.challengeMismatch) { try verify { $0.challenge = Array(0..<32) } }
    }

    @Test("step 13: origin must be allowed") func origin() {
        #expect(throws: WebAuthnError.originMismatch) { try verify { $0.clientData.origin = "http://example.org" } }
    }

    @Test("step 14: crossOrigin needs allowCrossOrigin") func crossOrigin() {
        #expect(throws: WebAuthnError.crossOriginNotAllowed) { try verify { $0.clientData.crossOrigin = true } }
    }

    @Test("step 15: rpIdHash must match the RP ID") func rpIDHash() {
        #expect(throws: WebAuthnError.rpIDHashMismatch) { try verify { $0.rpIDForHash = "example.com" } }
    }

    /// The RP ID's hash is kept with the relying party: one changed after creation must be
    /// the one checked, or a party reconfigured for another domain would accept the old one's.
    @Test("step 15: an RP ID changed after creation is the one checked") func rpIDChanged() throws {
        let moved: (inout WebAuthnRelyingParty) -> Void = { $0.rpID = "example.com" }
        #expect(throws: WebAuthnError.rpIDHashMismatch) { try verify({ _ in }, relyingParty: moved) }
        _ = try verify({ $0.rpIDForHash = "example.com" }, relyingParty: moved)
    }

    @Test("step 16: UP must be set") func userPresence() {
        #expect(throws: WebAuthnError.userPresenceRequired) { try verify { $0.flags = 0x04 } }
    }

    @Test("step 17: UV must be set when required") func userVerification() {
        #expect(throws: WebAuthnError.userVerificationRequired) { try verify { $0.flags = 0x01 } }
    }

    @Test("step 17: UV is ignored when not required") func userVerificationOptional() throws {
        _ = try verify({ $0.flags = 0x01 }, relyingParty: { $0.requireUserVerification = false })
    }

    @Test("step 19: BS without BE is invalid") func backupState() {
        #expect(throws: WebAuthnError.backupStateWithoutEligibility) { try verify { $0.flags = 0x15 } }
    }

    @Test("step 19: BE must not change after registration") func backupEligibility() {
        #expect(throws: WebAuthnError.backupEligibilityChanged) {
            try verify({ $0.flags = 0x0D }, storedBackupEligible: false)
        }
    }

    @Test("step 21: a tampered signature fails") func signature() {
        #expect(throws: WebAuthnError.invalidSignature) { try verify { $0.tamperSignature = true } }
    }

    @Test("step 21: another credential's key fails") func wrongKey() throws {
        let otherKey = try AuthenticationFixture().storedKey
        #expect(throws: WebAuthnError.invalidSignature) { try verify({ _ in }, storedKey: otherKey) }
    }

    @Test("step 22: an unchanged counter signals a clone") func counterNotIncreased() {
        #expect(throws: WebAuthnError.signCountNotIncreased) { try verify({ $0.signCount = 5 }, storedSignCount: 5) }
    }

    @Test("step 22: a counter reset to 0 signals a clone") func counterReset() {
        #expect(throws: WebAuthnError.signCountNotIncreased) { try verify({ $0.signCount = 0 }, storedSignCount: 5) }
    }

    @Test("step 22: counters that stay 0 (passkeys) are accepted") func counterZero() throws {
        #expect(try verify({ $0.signCount = 0 }, storedSignCount: 0).newSignCount == 0)
    }

    @Test("ED flag: an extensions map is parsed and signed") func extensions() throws {
        _ = try verify {
            $0.flags = 0x85
            $0.extensions = .map([(.text("credProtect"), .int(2))])
        }
    }

    @Test("ED flag without an extensions map is malformed") func missingExtensions() {
        #expect(throws: WebAuthnError.malformedAuthenticatorData) { try verify { $0.flags = 0x85 } }
    }

    @Test("a stored key that is not a COSE_Key is refused") func storedKey() {
        #expect(throws: WebAuthnError.malformedPublicKey) { try verify({ _ in }, storedKey: [0xA0]) }
    }

    @Test("RS1 keys do not sign assertions unless listed") func rs1() throws {
        let rs1Key = TestCBOR.map([
            (.int(1), .int(3)), (.int(3), .int(-65535)),
            (.int(-1), .bytes([0xC0] + Array(repeating: 0x11, count: 255))), (.int(-2), .bytes([1, 0, 1])),
        ]).encoded
        #expect(throws: WebAuthnError.unsupportedAlgorithm) { try verify({ _ in }, storedKey: rs1Key) }
    }

    @Test(
        "Ed448 and ML-DSA-44 keys are refused as unsupported",
        arguments: [
            TestCBOR.map([
                (.int(1), .int(1)), (.int(3), .int(-53)), (.int(-1), .int(7)), (.int(-2), .bytes(Array(repeating: 1, count: 57))),
            ]),
            TestCBOR.map([(.int(1), .int(7)), (.int(3), .int(-48)), (.int(-1), .bytes(Array(repeating: 1, count: 1312)))]),
        ])
    func unsupportedKeys(key: TestCBOR) {
        #expect(throws: WebAuthnError.unsupportedAlgorithm) { try verify({ _ in }, storedKey: key.encoded) }
    }
}
