import Foundation
import SesameWebAuthn
import SesameWebAuthnTesting
import Testing

/// §7.1 steps 22-23 with a generated PKI: packed full attestation judged against trust anchors
/// at a given verification time.
@Suite("Attestation trust (§7.1 steps 22-23)")
struct AttestationTrustTests {
    let pki: TestCertificates
    let inValidity = TestCertificates.notBefore.addingTimeInterval(3600)

    init() throws {
        pki = try TestCertificates()
    }

    private func register(
        at time: Date,
        _ configure: (inout WebAuthnRelyingParty) -> Void
    ) async throws -> VerifiedRegistration {
        var fixture = RegistrationFixture()
        fixture.attestation = .packedFull
        fixture.attestationKey = pki.leafKey
        fixture.x5c = [try pki.leafDER]
        var relyingParty = WebAuthnRelyingParty.fixture
        configure(&relyingParty)
        return try await relyingParty.verifyRegistration(
            credential: try fixture.build(), expectedChallenge: fixture.challenge, verificationTime: time)
    }

    @Test("a chain to a configured anchor is trusted") func trusted() async throws {
        let result = try await register(at: inValidity) { $0.trustAnchors = [pki.root] }
        #expect(result.attestationType == .basic)
        #expect(result.attestationTrust == .trusted([pki.leaf, pki.root]))
    }

    @Test("the strict default refuses a chain without anchors") func strictDefault() async {
        await #expect(throws: WebAuthnError.attestationUntrusted) { try await register(at: inValidity) { _ in } }
    }

    @Test("a chain to another root is refused") func otherRoot() async throws {
        let other = try TestCertificates()
        await #expect(throws: WebAuthnError.attestationUntrusted) {
            try await register(at: inValidity) { $0.trustAnchors = [other.root] }
        }
    }

    @Test("the verification time decides certificate validity") func expired() async {
        let late = TestCertificates.notAfter.addingTimeInterval(60)
        await #expect(throws: WebAuthnError.attestationUntrusted) {
            try await register(at: late) { $0.trustAnchors = [pki.root] }
        }
    }

    @Test("without anchors, whenAnchorsConfigured reports the chain unverified") func lenient() async throws {
        let result = try await register(at: inValidity) { $0.chainValidation = .whenAnchorsConfigured }
        #expect(result.attestationTrust == .unverified)
    }

    @Test("a revoked leaf is refused") func revoked() async throws {
        let leaf = pki.leaf
        await #expect(throws: WebAuthnError.attestationCertificateRevoked) {
            try await register(at: inValidity) {
                $0.trustAnchors = [pki.root]
                $0.revokedCertificates = [RevokedCertificate(leaf)]
            }
        }
    }
}
