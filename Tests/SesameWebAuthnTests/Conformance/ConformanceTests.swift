import Foundation
import SesameWebAuthn
import SesameWebAuthnTesting
import Testing

@Suite("WebAuthn conformance corpus")
struct ConformanceTests {
    static let refusedAsUnsupported = CorpusExpectations.refusedAsUnsupported
    static let needsRevocationData = CorpusExpectations.needsRevocationData

    @Test("the corpus is present, or its absence is reported")
    func corpusPresence() {
        guard let url = ConformanceCorpus.url else {
            print("⚠️ notice: ../shared/conformance/webauthn/vectors.json not found; conformance cases skipped")
            return
        }
        #expect(ConformanceCorpus.cases.count == 135, "unexpected case count in \(url.path)")
    }

    @Test("every case reaches its expected outcome", arguments: ConformanceCorpus.cases)
    func conformance(_ testCase: ConformanceCase) async throws {
        let outcome = await run(testCase)
        if Self.refusedAsUnsupported.contains(testCase.name) {
            #expect(outcome.error == .unsupportedAlgorithm, "\(outcome)")
            return
        }
        if Self.needsRevocationData.contains(testCase.name) {
            let leaf = try #require(outcome.registrationResult?.attestationCertificates.first)
            let revoked = await run(testCase, revoking: [RevokedCertificate(leaf)])
            #expect(revoked.error == .attestationCertificateRevoked, "\(revoked)")
            return
        }
        switch (testCase.expected.outcome, outcome) {
        case ("error", .failure):
            break
        case ("ok", .registration(let result)):
            checkRegistration(result, testCase)
        case ("ok", .authentication(let result)):
            checkAuthentication(result, testCase)
        default:
            Issue.record("expected \(testCase.expected.outcome) (\(testCase.expected.reason ?? "")), got \(outcome)")
        }
    }

    private func run(_ testCase: ConformanceCase, revoking revoked: [RevokedCertificate] = []) async -> Outcome {
        do {
            var relyingParty = try testCase.relyingParty()
            relyingParty.revokedCertificates = revoked
            let challenge = testCase.bytes(testCase.expectedChallenge)
            if testCase.ceremony == "registration" {
                let credential = try RegistrationCredential(json: testCase.credentialJSON)
                return .registration(
                    try await relyingParty.verifyRegistration(
                        credential: credential, expectedChallenge: challenge, verificationTime: testCase.now))
            }
            let credential = try AuthenticationCredential(json: testCase.credentialJSON)
            return .authentication(
                try relyingParty.verifyAuthentication(
                    credential: credential, expectedChallenge: challenge,
                    credentialPublicKey: testCase.bytes(testCase.credentialPublicKey),
                    storedSignCount: testCase.storedSignCount ?? 0))
        } catch let error as WebAuthnError {
            return .failure(error)
        } catch {
            return .harnessError(String(describing: error))
        }
    }

    private func checkRegistration(_ result: VerifiedRegistration, _ testCase: ConformanceCase) {
        let expected = testCase.expected
        #expect(result.format.rawValue == expected.fmt)
        #expect(result.credentialID == testCase.bytes(expected.credentialID))
        if let key = expected.credentialPublicKey { #expect(result.credentialPublicKey == testCase.bytes(key)) }
        if let count = expected.signCount { #expect(result.signCount == count) }
        if let aaguid = expected.aaguid { #expect(result.aaguid.uuidString.lowercased() == aaguid.lowercased()) }
        if let userVerified = expected.userVerified { #expect(result.userVerified == userVerified) }
        if let type = expected.credentialDeviceType { #expect(result.deviceType.rawValue == type) }
        if let backedUp = expected.credentialBackedUp { #expect(result.backedUp == backedUp) }
    }

    private func checkAuthentication(_ result: VerifiedAuthentication, _ testCase: ConformanceCase) {
        let expected = testCase.expected
        if let id = expected.credentialID { #expect(result.credentialID == testCase.bytes(id)) }
        if let count = expected.signCount { #expect(result.newSignCount == count) }
        if let userVerified = expected.userVerified { #expect(result.userVerified == userVerified) }
        if let type = expected.credentialDeviceType { #expect(result.deviceType.rawValue == type) }
        if let backedUp = expected.credentialBackedUp { #expect(result.backedUp == backedUp) }
    }
}

/// What a corpus case produced.
enum Outcome: CustomStringConvertible {
    case registration(VerifiedRegistration)
    case authentication(VerifiedAuthentication)
    case failure(WebAuthnError)
    case harnessError(String)

    var error: WebAuthnError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var registrationResult: VerifiedRegistration? {
        if case .registration(let result) = self { return result }
        return nil
    }

    var description: String {
        switch self {
        case .registration(let result): "ok(\(result.format.rawValue), \(result.attestationType.rawValue))"
        case .authentication(let result): "ok(signCount \(result.newSignCount))"
        case .failure(let error): "error(\(error))"
        case .harnessError(let text): "harness error: \(text)"
        }
    }
}
