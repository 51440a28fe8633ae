#if os(iOS)
    import SesameClient
    import SwiftUI
    import UIKit

    /// Signed out: Lock's screens (code by email or SMS, magic link, Face ID device key,
    /// passkey, passkey AutoFill). Signed in: the profile and what to do with the session.
    public struct DemoRootView: View {
        @StateObject private var session = DemoSession()
        @StateObject private var login = PasswordlessLoginViewModel(
            client: SesameClient(domain: DemoSession.domain, clientID: DemoSession.clientID))
        @State private var signUpEmail = ""
        @State private var autoFill: Task<Void, Never>?

        public init() {}

        public var body: some View {
            NavigationView {
                Group {
                    if let credentials = session.credentials {
                        signedIn(credentials)
                    } else {
                        signedOut
                    }
                }
                .navigationTitle("Sesame Demo")
            }
            .task { await session.resume() }
            .onOpenURL { url in Task { await session.open(url) } }
        }

        private var signedOut: some View {
            ScrollView {
                LockView(
                    model: login,
                    brand: LockBrand(name: "Sesame Demo", logo: Image(systemName: "lock.shield"), hexColor: "#5E5CE6"),
                    deviceKey: session.deviceKey, passkeys: Self.passkeys()
                ) { credentials in
                    autoFill?.cancel()
                    Task { await session.signedIn(credentials) }
                }
                VStack(spacing: 8) {
                    TextField("Email for a new passkey account", text: $signUpEmail)
                        .textContentType(.username)
                        .keyboardType(.emailAddress)
                        .textInputAutocapitalization(.never)
                        .textFieldStyle(.roundedBorder)
                    Button("Sign up with a passkey") {
                        guard let passkeys = Self.passkeys() else { return }
                        Task { await session.signUpWithPasskey(email: signUpEmail, passkeys: passkeys) }
                    }
                }
                .padding()
                if let message = session.message { Text(message).font(.footnote).foregroundColor(.red) }
            }
            .onAppear { startAutoFill() }
            .onDisappear { autoFill?.cancel() }
        }

        private func signedIn(_ credentials: Credentials) -> some View {
            List {
                Section("Session") {
                    Text("Access token ends \(credentials.expiresAt.formatted())")
                    Button("Renew now (Face ID first)") { Task { await session.resume() } }
                    Button("Register Face ID sign-in for this device") { Task { await session.registerDeviceKey() } }
                    Button("Sign out", role: .destructive) {
                        Task {
                            await session.signOut()
                            login.changeIdentifier()
                        }
                    }
                }
                if let message = session.message { Text(message).foregroundColor(.red) }
            }
        }

        /// Passkey sign-in offered in the keyboard's QuickType bar while this screen shows.
        private func startAutoFill() {
            guard #available(iOS 16.0, *), let window = Self.window() else { return }
            let client = SesameClient(domain: DemoSession.domain, clientID: DemoSession.clientID)
            autoFill = Task {
                let passkeys = AuthenticationServicesPasskeys.autoFill(anchor: window)
                if let credentials = try? await client.loginWithPasskey(authenticator: passkeys) {
                    await session.signedIn(credentials)
                }
            }
        }

        private static func passkeys() -> AuthenticationServicesPasskeys? {
            window().map { AuthenticationServicesPasskeys(anchor: $0) }
        }

        private static func window() -> UIWindow? {
            UIApplication.shared.connectedScenes.compactMap { ($0 as? UIWindowScene)?.keyWindow }.first
        }
    }
#endif
