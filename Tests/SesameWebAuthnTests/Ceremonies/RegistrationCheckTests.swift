import Foundation
import SesameWebAuthn
import SesameWebAuthnTesting
import Testing

/// One test per §7.1 check: a valid fixture with exactly one mutation must fail with that check's error.
@Suite("Registration checks (§7.1)")
struct RegistrationCheckTests {
    private func verify(
        _ mutate: (inout RegistrationFixture) -> Void,
        relyingParty configure: (inout WebAuthnRelyingParty) -> Void = { _ in }
    ) async throws -> VerifiedRegistration {
        var fixture = RegistrationFixture()
        mutate(&fixture)
        var relyingParty = WebAuthnRelyingParty.fixture
        configure(&relyingParty)
        return try await relyingParty.verifyRegistration(
            credential: try fixture.build(), expectedChallenge: Array(0..<32))
    }

    private func expectFailure(
        _ expected: WebAuthnError,
        _ mutate: (inout RegistrationFixture) -> Void,
        relyingParty configure: (inout WebAuthnRelyingParty) -> Void = { _ in }
    ) async {
        await #expect(throws: expected) { try await verify(mutate, relyingParty: configure) }
    }

    @Test("the unmutated fixture passes") func baseline() async throws {
        _ = try await verify { _ in }
    }

    @Test("step 1: type must be public-key") func credentialType() async {
        await expectFailure(.invalidCredentialType) { $0.credentialType = "password" }
    }

    @Test("step 1: id must encode rawId") func idMatchesRawID() async {
        await expectFailure(.credentialIDMismatch) { $0.idOverride = "AAAA" }
    }

    @Test("steps 5-6: clientDataJSON must be a JSON object") func clientDataJSON() async {
        await expectFailure(.malformedClientData) { $0.rawClientData = Array("[1,2]".utf8) }
    }

    @Test("step 7: type must be webauthn.create") func clientDataType() async {
        await expectFailure(.clientDataTypeMismatch) { $0.clientData.type = "webauthn.get" }
    }

    @Test("step 8: challenge must match") func challenge() async {
        await expectFailure(.challengeMismatch) { $0.challenge = Array(1...32) }
    }

    @Test("step 9: origin must be allowed") func origin() async {
        await expectFailure(.originMismatch) { $0.clientData.origin = "https://evil.example" }
    }

    @Test("step 9: android:apk-key-hash origins are accepted when listed") func androidOrigin() async throws {
        let origin = "android:apk-key-hash:pNiP5iKyQ8JwgGOaKA1zGPUPJIS-0H1xKCQcfIoGLck"
        _ = try await verify({ $0.clientData.origin = origin }, relyingParty: { $0.allowedOrigins.append(origin) })
    }

    @Test("step 10: crossOrigin needs allowCrossOrigin") func crossOrigin() async {
        await expectFailure(.crossOriginNotAllowed) { $0.clientData.crossOrigin = true }
    }

    @Test("step 10: topOrigin must be an allowed top origin") func topOrigin() async {
        await expectFailure(
            .topOriginNotAllowed,
            {
                $0.clientData.crossOrigin = true
                $0.clientData.topOrigin = "https://framer.example"
            },
            relyingParty: {
                $0.allowCrossOrigin = true
                $0.allowedTopOrigins = ["https://example.com"]
            })
    }

    @Test("Level 2 tokenBinding status not-supported is invalid") func tokenBinding() async {
        await expectFailure(.tokenBindingInvalid) { $0.clientData.tokenBindingStatus = "not-supported" }
    }

    @Test("step 12: attestationObject must be a well-formed map") func attestationObject() async {
        await expectFailure(.malformedAttestationObject) { $0.statementOverride = .text("not a map") }
    }

    @Test("authenticatorData must not have trailing bytes") func trailingBytes() async {
        await expectFailure(.malformedAuthenticatorData) { $0.trailingBytes = [0x00] }
    }

    @Test("step 13: rpIdHash must match the RP ID") func rpIDHash() async {
        await expectFailure(.rpIDHashMismatch) { $0.rpIDForHash = "evil.example" }
    }

    @Test("step 14: UP must be set") func userPresence() async {
        await expectFailure(.userPresenceRequired) { $0.flags &= ~0x01 }
    }

    @Test("step 14: UP may be clear for conditional registration") func conditionalCreate() async throws {
        _ = try await verify({ $0.flags &= ~0x01 }, relyingParty: { $0.requireUserPresence = false })
    }

    @Test("step 15: UV must be set when required") func userVerification() async {
        await expectFailure(.userVerificationRequired) { $0.flags &= ~0x04 }
    }

    @Test("step 16: BS without BE is invalid") func backupState() async {
        await expectFailure(.backupStateWithoutEligibility) { $0.flags |= 0x10 }
    }

    @Test("step 17: attested credential data must be present") func attestedData() async {
        await expectFailure(.attestedCredentialDataMissing) { $0.flags &= ~0x40 }
    }

    @Test("step 17: a 1024-byte credential ID is refused") func longCredentialID() async {
        await expectFailure(.credentialIDTooLong) { $0.credentialID = Array(repeating: 7, count: 1024) }
    }

    @Test("step 17: a 1023-byte credential ID is accepted") func maximalCredentialID() async throws {
        _ = try await verify { $0.credentialID = Array(repeating: 7, count: 1023) }
    }

    @Test("step 18: the key algorithm must be offered") func algorithmNotAllowed() async {
        await expectFailure(.algorithmNotAllowed, { _ in }, relyingParty: { $0.supportedAlgorithms = [.edDSA] })
    }

    @Test("step 20: unknown formats are refused") func unknownFormat() async {
        await expectFailure(.unsupportedAttestationFormat) { $0.format = "Packed" }
    }

    @Test("step 21: none needs an empty attStmt") func noneStatement() async {
        await expectFailure(.malformedAttestationStatement) { $0.statementOverride = .map([(.text("x"), .int(1))]) }
    }

    @Test("step 21: a tampered packed self signature fails") func packedSelfSignature() async {
        await expectFailure(.attestationSignatureInvalid) {
            $0.attestation = .packedSelf
            $0.tamperSignature = true
        }
    }

    @Test("step 21: packed x5c entries must be certificates") func packedX5C() async {
        await expectFailure(.attestationCertificateInvalid) {
            $0.attestation = .packedSelf
            $0.statementOverride = .map([
                (.text("alg"), .int(-7)), (.text("sig"), .bytes([0x30])), (.text("x5c"), .array([.bytes([0x30, 0x00])])),
            ])
        }
    }
}
