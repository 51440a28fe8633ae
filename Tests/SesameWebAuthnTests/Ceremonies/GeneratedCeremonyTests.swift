import Foundation
import SesameWebAuthn
import SesameWebAuthnTesting
import Testing

@Suite("Generated ceremonies from a software authenticator")
struct GeneratedCeremonyTests {
    enum KeyKind: String, CaseIterable, Sendable { case es256, edDSA, rs256 }
    enum Format: String, CaseIterable, Sendable { case none, packedSelf }

    static func authenticator(_ kind: KeyKind) throws -> SoftwareAuthenticator {
        switch kind {
        case .es256: .es256()
        case .edDSA: .edDSA()
        case .rs256: try .rs256()
        }
    }

    @Test("register, then authenticate twice", arguments: KeyKind.allCases, Format.allCases)
    func roundTrip(kind: KeyKind, format: Format) async throws {
        let authenticator = try Self.authenticator(kind)
        var registration = RegistrationFixture(authenticator)
        registration.attestation = format == .none ? .none : .packedSelf
        let relyingParty = WebAuthnRelyingParty.fixture
        let record = try await relyingParty.verifyRegistration(
            credential: try registration.build(), expectedChallenge: registration.challenge)
        #expect(record.format == (format == .none ? .none : .packed))
        #expect(record.attestationType == (format == .none ? .none : .selfAttestation))
        #expect(record.attestationTrust == .notApplicable)
        #expect(record.credentialID == registration.credentialID)
        #expect(record.credentialAlgorithm.rawValue == authenticator.algorithm)
        #expect(record.deviceType == .singleDevice)

        var assertion = AuthenticationFixture(authenticator)
        assertion.signCount = 7
        let first = try relyingParty.verifyAuthentication(
            credential: try assertion.build(), expectedChallenge: assertion.challenge,
            credentialPublicKey: record.credentialPublicKey, storedSignCount: record.signCount)
        #expect(first.newSignCount == 7)
        #expect(first.userHandle == Array("user-1".utf8))
        assertion.signCount = 8
        let second = try relyingParty.verifyAuthentication(
            credential: try assertion.build(), expectedChallenge: assertion.challenge,
            credentialPublicKey: record.credentialPublicKey, storedSignCount: first.newSignCount)
        #expect(second.newSignCount == 8)
    }

    @Test("a synced passkey (BE, BS, counter always 0) keeps working")
    func syncedPasskey() async throws {
        var registration = RegistrationFixture()
        registration.flags = 0x5D  // UP UV BE BS AT
        let relyingParty = WebAuthnRelyingParty.fixture
        let record = try await relyingParty.verifyRegistration(
            credential: try registration.build(), expectedChallenge: registration.challenge)
        #expect(record.deviceType == .multiDevice)
        #expect(record.backedUp)
        var assertion = AuthenticationFixture(registration.authenticator)
        assertion.flags = 0x1D
        assertion.signCount = 0
        let result = try relyingParty.verifyAuthentication(
            credential: try assertion.build(), expectedChallenge: assertion.challenge,
            credentialPublicKey: record.credentialPublicKey, storedSignCount: 0, storedBackupEligible: true)
        #expect(result.newSignCount == 0)
        #expect(result.backedUp)
    }

    @Test("the browser JSON shape round-trips through Codable")
    func jsonRoundTrip() throws {
        let credential = try RegistrationFixture().build()
        let json = try JSONEncoder().encode(credential)
        #expect(try RegistrationCredential(json: json) == credential)
        let assertion = try AuthenticationFixture().build()
        #expect(try AuthenticationCredential(json: try JSONEncoder().encode(assertion)) == assertion)
    }

    @Test("credential JSON that is not base64url is malformed")
    func malformedJSON() {
        let json = Data(#"{"id":"AA","rawId":"A","type":"public-key","response":{}}"#.utf8)
        #expect(throws: WebAuthnError.malformedCredential) { try RegistrationCredential(json: json) }
    }
}
