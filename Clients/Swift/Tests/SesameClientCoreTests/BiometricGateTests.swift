import Foundation
import Testing

@testable import SesameClientCore

/// A biometric prompt that answers as the test says, counting how often it was shown.
final class FakeBiometrics: BiometricAuthenticator {
    let prompts = Locked(0)
    let missing = Locked<BiometricFailure?>(nil)
    let answer = Locked<BiometricFailure?>(nil)
    let gate = Gate()

    func unavailability(of evaluation: BiometricPolicy.Evaluation) -> BiometricFailure? { missing.current }

    func evaluate(_ policy: BiometricPolicy) async throws {
        prompts.update { $0 += 1 }
        await gate.wait()
        if let failure = answer.current { throw failure }
    }
}

/// Credentials behind Face ID / Touch ID: what is asked when, and that every failure keeps
/// the tokens locked.
@Suite("SesameClient: biometric gate")
struct BiometricGateTests {
    static let policy = BiometricPolicy(reason: "Sign in to Example")

    static func manager(
        _ biometrics: FakeBiometrics, policy: BiometricPolicy = policy, now: @escaping @Sendable () -> Date = Date.init
    ) async throws -> (CredentialsManager, FakeTokenServer) {
        try await manager(biometrics, policy: policy, now: now, store: MemoryCredentialsStore())
    }

    static func manager(
        _ biometrics: FakeBiometrics, policy: BiometricPolicy = policy, now: @escaping @Sendable () -> Date = Date.init,
        store: MemoryCredentialsStore
    ) async throws -> (CredentialsManager, FakeTokenServer) {
        let server = FakeTokenServer()
        await server.gate.open()
        let manager = CredentialsManager(client: server.client, store: store)
        var credentials = FakeTokenServer.expiring()
        credentials.expiresAt = Date().addingTimeInterval(3600)
        try await manager.signedIn(credentials)
        await manager.enableBiometrics(BiometricGate(policy: policy, authenticator: biometrics, now: now))
        return (manager, server)
    }

    static func failure(_ error: any Error) -> BiometricFailure? { (error as? SesameClientError)?.biometricFailure }

    @Test("ten callers at once see one prompt")
    func onePromptForConcurrentCallers() async throws {
        let biometrics = FakeBiometrics()
        let (manager, _) = try await Self.manager(biometrics)
        let gate = BiometricGate(policy: Self.policy, authenticator: biometrics)
        await manager.enableBiometrics(gate)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 1...10 { group.addTask { _ = try await manager.credentials() } }
            // The prompt stays up until all ten have asked: one shows it, nine join it. (A
            // caller that asked after it closed would rightly be asked again.)
            // Bounded: a gate that did not share its prompt would never count nine, and the
            // expectation below then fails instead of the test hanging.
            let deadline = ContinuousClock.now + .seconds(10)
            while await gate.joinedPrompt < 9, ContinuousClock.now < deadline { await Task.yield() }
            await biometrics.gate.open()
            try await group.waitForAll()
        }
        #expect(biometrics.prompts.current == 1)
    }

    /// Attack (bypass by unenrolling): someone who knows the passcode removes the owner's face
    /// or disables Face ID for the app, hoping the gate lets the tokens through when it
    /// cannot ask.
    @Test("no enrolled biometry: the gate stays closed")
    func biometryRemovedKeepsTokensLocked() async throws {
        let biometrics = FakeBiometrics()
        biometrics.missing.update { $0 = .notEnrolled }
        let (manager, _) = try await Self.manager(biometrics)
        await #expect { _ = try await manager.credentials() } throws: { Self.failure($0) == .notEnrolled }
        #expect(biometrics.prompts.current == 0)
    }

    /// Attack (tokens despite a refusal): a cancelled, failed or locked-out prompt must not
    /// hand out the stored tokens nor renew them.
    @Test(
        "a cancelled, unrecognised or locked-out prompt hands out nothing",
        arguments: [
            BiometricFailure.cancelled, .fallback, .notRecognised, .lockedOut,
        ])
    func refusedPromptKeepsTokensLocked(failure: BiometricFailure) async throws {
        let biometrics = FakeBiometrics()
        biometrics.answer.update { $0 = failure }
        await biometrics.gate.open()
        let store = MemoryCredentialsStore()
        let (manager, server) = try await Self.manager(biometrics, store: store)
        await #expect { _ = try await manager.credentials() } throws: { error in
            Self.failure(error) == failure
                && (error as? SesameClientError)?.isBiometricCancelled == (failure == .cancelled || failure == .fallback)
        }
        #expect(server.refreshes.current == 0)
        #expect(store.loads.current == 0)
    }

    @Test("signed out: nobody is asked for Face ID")
    func signedOutAsksNobody() async throws {
        let biometrics = FakeBiometrics()
        let (manager, _) = try await Self.manager(biometrics)
        try await manager.signOut()
        await #expect { _ = try await manager.credentials() } throws: { ($0 as? SesameClientError)?.isNotSignedIn == true }
        #expect(biometrics.prompts.current == 0)
    }

    /// Attack (stretching the reuse window): setting the device's clock back before the last
    /// success made "seconds since" negative, which read as within the window forever.
    @Test("a success lets requests through for reuseDuration, and a clock set back does not extend it")
    func reuseWindow() async throws {
        let biometrics = FakeBiometrics()
        await biometrics.gate.open()
        let clock = Locked(Date(timeIntervalSince1970: 1_000_000))
        let policy = BiometricPolicy(reason: "Sign in", reuseDuration: 60)
        let (manager, _) = try await Self.manager(biometrics, policy: policy, now: { clock.current })
        _ = try await manager.credentials()
        clock.update { $0 += 30 }
        _ = try await manager.credentials()
        #expect(biometrics.prompts.current == 1)
        clock.update { $0 -= 3600 }
        _ = try await manager.credentials()
        #expect(biometrics.prompts.current == 2)
        clock.update { $0 += 3600 + 61 }
        _ = try await manager.credentials()
        #expect(biometrics.prompts.current == 3)
    }

    /// Attack (a confirmation that outlives its person): within the reuse window, a sign-out
    /// and a new sign-in would have skipped the next person's prompt.
    @Test("sign-out forgets the last success")
    func signOutForgetsConfirmation() async throws {
        let biometrics = FakeBiometrics()
        await biometrics.gate.open()
        let (manager, _) = try await Self.manager(biometrics, policy: BiometricPolicy(reason: "Sign in", reuseDuration: 600))
        _ = try await manager.credentials()
        try await manager.signOut()
        var credentials = FakeTokenServer.expiring()
        credentials.expiresAt = Date().addingTimeInterval(3600)
        try await manager.signedIn(credentials)
        _ = try await manager.credentials()
        #expect(biometrics.prompts.current == 2)
    }

    @Test("LocalAuthentication's codes and the Keychain's statuses map to failures")
    func errorMapping() {
        let codes: [Int: BiometricFailure] = [
            -1: .notRecognised, -2: .cancelled, -3: .fallback, -4: .interrupted, -5: .passcodeNotSet, -6: .unavailable,
            -7: .notEnrolled, -8: .lockedOut, -9: .interrupted, -1004: .notInteractive, -99: .other(-99),
        ]
        for (code, failure) in codes { #expect(BiometricFailure(laErrorCode: code) == failure) }
        #expect(BiometricFailure(keychainStatus: -128) == .cancelled)
        #expect(BiometricFailure(keychainStatus: -25293) == .notRecognised)
        #expect(BiometricFailure(keychainStatus: -25300) == nil)
    }

    /// Attack (weaker item than prompt): a biometrics-only policy whose Keychain item also
    /// opened with the passcode let anyone who watched the passcode read the session.
    @Test("the Keychain item accepts the passcode only when the policy does")
    func keychainProtection() {
        #expect(
            BiometricPolicy(reason: "r").keychainProtection
                == KeychainProtection(biometryCurrentSet: true, orDevicePasscode: false))
        #expect(
            BiometricPolicy(reason: "r", evaluation: .biometricsOrPasscode).keychainProtection
                == KeychainProtection(biometryCurrentSet: true, orDevicePasscode: true))
    }
}
