#if os(iOS)
    import Foundation
    import SesameClient

    /// The demo's configuration and session: one client, credentials in the Keychain behind
    /// Face ID, a Secure Enclave device key.
    @MainActor
    public final class DemoSession: ObservableObject {
        /// Your Sesame server and application (an app link's host must be this server's).
        public static let domain = URL(string: "https://login.example.com")!
        public static let clientID = "YOUR_CLIENT_ID"
        static let service = "com.example.SesameDemo"
        /// The team id and the keychain-access-groups entitlement's group, shared with extensions.
        static let accessGroup = "ABCDE12345.com.example.SesameDemo.shared"

        let client: SesameClient
        let manager: CredentialsManager
        let deviceKey: DeviceKeyAuthentication
        @Published public private(set) var credentials: Credentials?
        @Published public private(set) var message: String?

        public init() {
            let client = SesameClient(domain: Self.domain, clientID: Self.clientID)
            let reason = "Unlock your Sesame Demo session"
            let biometrics = LocalAuthenticationBiometrics(reason: reason)
            let policy = BiometricPolicy(reason: reason, evaluation: .biometricsOrPasscode)
            let store = KeychainCredentialsStore(
                service: Self.service, accessGroup: Self.accessGroup, biometrics: biometrics, policy: policy)
            let keys: any DeviceKeyStore =
                SecureEnclaveDeviceKeyStore.isAvailable
                ? SecureEnclaveDeviceKeyStore(service: Self.service) : KeychainDeviceKeyStore(service: Self.service)
            self.client = client
            manager = CredentialsManager(
                client: client, store: store, biometrics: BiometricGate(policy: policy, authenticator: biometrics))
            deviceKey = DeviceKeyAuthentication(client: client, store: keys, presence: BiometricPresenceVerifier())
        }

        /// Keeps a new login's tokens.
        public func signedIn(_ credentials: Credentials) async {
            await report { try await self.manager.signedIn(credentials) }
            self.credentials = credentials
        }

        /// Unlocks the stored session (Face ID), renewing it when it is about to expire.
        public func resume() async {
            await report { self.credentials = try await self.manager.credentials() }
        }

        /// Signs in with a magic link opened as a universal link (`/ios/BUNDLE/email?code=…`).
        public func open(_ url: URL) async {
            guard let link = client.magicLink(from: url) else { return }
            await report { await self.signedIn(try await self.client.login(with: link)) }
        }

        /// Registers this device's key for Face ID sign-in (right after a code login: the
        /// server wants a recent login).
        public func registerDeviceKey() async {
            guard let token = credentials?.accessToken else { return }
            await report { _ = try await self.deviceKey.register(accessToken: token, deviceName: "Sesame Demo") }
        }

        /// Signs up with a passkey for `email`.
        public func signUpWithPasskey(email: String, passkeys: any PasskeyAuthenticator) async {
            await report { await self.signedIn(try await self.client.signUpWithPasskey(email: email, authenticator: passkeys)) }
        }

        /// Revokes the session and forgets it.
        public func signOut() async {
            await report { try await self.manager.signOut() }
            credentials = nil
        }

        private func report(_ body: () async throws -> Void) async {
            do {
                try await body()
                message = nil
            } catch let error as SesameClientError where error.isBiometricCancelled || error.isNotSignedIn {
                message = nil
            } catch {
                message = "\(error)"
            }
        }
    }
#endif
