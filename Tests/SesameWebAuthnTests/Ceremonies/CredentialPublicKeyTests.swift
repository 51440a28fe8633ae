import Foundation
import SesameWebAuthn
import SesameWebAuthnTesting
import Testing

/// `verifyAuthentication` with a key decoded once must run every check the byte variant runs.
@Suite("Authentication with a pre-decoded credential public key")
struct CredentialPublicKeyTests {
    private func both(
        _ mutate: (inout AuthenticationFixture) -> Void = { _ in }
    ) throws -> (bytes: Result<VerifiedAuthentication, WebAuthnError>, parsed: Result<VerifiedAuthentication, WebAuthnError>) {
        var fixture = AuthenticationFixture()
        mutate(&fixture)
        let credential = try fixture.build()
        let stored = try fixture.storedKey
        let key = try CredentialPublicKey(cose: stored)
        let relyingParty = WebAuthnRelyingParty.fixture
        let challenge: [UInt8] = Array(100..<132)
        return (
            Result { () throws(WebAuthnError) in
                try relyingParty.verifyAuthentication(
                    credential: credential, expectedChallenge: challenge, credentialPublicKey: stored, storedSignCount: 0)
            },
            Result { () throws(WebAuthnError) in
                try relyingParty.verifyAuthentication(
                    credential: credential, expectedChallenge: challenge, credentialPublicKey: key, storedSignCount: 0)
            }
        )
    }

    @Test("a valid assertion gives the same result both ways")
    func same() throws {
        let (bytes, parsed) = try both()
        #expect(try bytes.get() == parsed.get())
    }

    @Test("every failure is the same failure both ways")
    func failures() throws {
        let mutations: [(inout AuthenticationFixture) -> Void] = [
            { $0.challenge = Array(0..<32) }, { $0.clientData.origin = "https://evil.example" },
            { $0.rpIDForHash = "evil.example" }, { $0.flags = 0x04 }, { $0.tamperSignature = true },
            { $0.clientData.type = "webauthn.create" },
        ]
        for mutate in mutations {
            let (bytes, parsed) = try both(mutate)
            guard case .failure(let expected) = bytes else {
                Issue.record("mutation did not fail")
                continue
            }
            #expect(throws: expected) { try parsed.get() }
        }
    }

    @Test("a malformed stored key is refused when it is decoded")
    func malformed() {
        #expect(throws: WebAuthnError.malformedPublicKey) { try CredentialPublicKey(cose: [0xA1, 0x01]) }
        #expect(throws: WebAuthnError.malformedPublicKey) { try CredentialPublicKey(cose: [0xA2, 0x01, 0x02, 0x03, 0x26]) }
    }
}
