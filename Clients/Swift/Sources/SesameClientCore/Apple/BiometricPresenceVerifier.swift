// Apple platforms only: not compiled on Linux, where TerminalPresenceVerifier takes its place.
#if canImport(LocalAuthentication)
    import LocalAuthentication

    /// Touch ID, Face ID or Optic ID (falling back to the device passcode) before a device key
    /// signs: what the seeds' TouchIDAuth asked for.
    public struct BiometricPresenceVerifier: UserPresenceVerifier {
        /// Creates the verifier.
        public init() {}

        public func confirmPresence(reason: String) async throws -> Bool {
            try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: reason)
        }
    }
#endif
