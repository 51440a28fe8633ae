// iOS only (SwiftUI, with the iOS keyboard and text content types): not compiled on Linux.
// Everything the screens decide (validation, the countdown, the country list, E.164 numbers,
// the flow's states and messages) is tested on Linux; these views only show it.
#if canImport(SwiftUI) && canImport(Combine) && os(iOS)
    public import SwiftUI

    /// How Lock's screens look: the app's name, logo and brand colour.
    public struct LockBrand {
        public var name: String
        public var logo: Image?
        public var color: Color
        /// Text on the brand colour.
        public var onColor: Color

        /// A brand from a hex colour (`#0A84FF`); an unreadable one falls back to the accent colour.
        public init(name: String, logo: Image? = nil, hexColor: String) {
            let brand = BrandColor(hex: hexColor)
            self.name = name
            self.logo = logo
            color = brand.map { Color(red: $0.red, green: $0.green, blue: $0.blue) } ?? .accentColor
            onColor = brand?.prefersDarkText == true ? .black : .white
        }
    }

    /// Lock's passwordless sign-in: email or phone (with a country picker), the code with
    /// resend and its countdown, a magic link's waiting screen, and the device key and passkey
    /// buttons when the app gives them. Driven by a ``PasswordlessLoginViewModel``.
    public struct LockView: View {
        @ObservedObject var model: PasswordlessLoginViewModel
        let brand: LockBrand
        let deviceKey: DeviceKeyAuthentication?
        let passkeys: (any PasskeyAuthenticator)?
        let onSignedIn: (Credentials) -> Void

        @State private var usesPhone = false
        @State private var country = PhoneCountry.country(forRegion: Locale.current.regionCode) ?? PhoneCountry.all[0]
        @State private var nationalNumber = ""

        /// The screens over `model`; `deviceKey` and `passkeys` add their buttons.
        public init(
            model: PasswordlessLoginViewModel, brand: LockBrand, deviceKey: DeviceKeyAuthentication? = nil,
            passkeys: (any PasskeyAuthenticator)? = nil, onSignedIn: @escaping (Credentials) -> Void
        ) {
            self.model = model
            self.brand = brand
            self.deviceKey = deviceKey
            self.passkeys = passkeys
            self.onSignedIn = onSignedIn
        }

        public var body: some View {
            VStack(spacing: 20) {
                header
                if let wait = model.state.linkWait {
                    LinkWaitingScreen(wait: wait, brand: brand) { model.cancelLink() }
                } else {
                    switch model.state.step {
                    case .identifier: identifierScreen
                    case .code: codeScreen
                    case .signedIn: ProgressView()
                    }
                }
                if let message = model.state.errorMessage {
                    Text(message).font(.footnote).foregroundColor(.red).multilineTextAlignment(.center)
                }
            }
            .padding()
            .tint(brand.color)
        }

        private var header: some View {
            VStack(spacing: 8) {
                if let logo = brand.logo { logo.resizable().scaledToFit().frame(height: 56) }
                Text(brand.name).font(.title2.bold())
            }
        }

        private var identifierScreen: some View {
            VStack(spacing: 12) {
                Picker("Sign in with", selection: $usesPhone) {
                    Text("Email").tag(false)
                    Text("Phone").tag(true)
                }
                .pickerStyle(.segmented)
                if usesPhone {
                    HStack {
                        CountryPicker(country: $country)
                        TextField("Phone number", text: $nationalNumber)
                            .keyboardType(.phonePad)
                            .textContentType(.telephoneNumber)
                    }
                } else {
                    TextField("Email", text: $model.identifier)
                        .keyboardType(.emailAddress)
                        .textContentType(.username)
                        .textInputAutocapitalization(.never)
                        .disableAutocorrection(true)
                }
                primaryButton("Send code") { await model.sendCode() }
                if !usesPhone {
                    Button("Email me a link instead") { run { await model.sendLink() } }
                        .disabled(model.state.isWorking)
                }
                if let deviceKey {
                    Button {
                        run { await model.signIn(with: deviceKey) }
                    } label: {
                        Label("Sign in with Face ID", systemImage: "faceid")
                    }
                    .disabled(model.state.isWorking)
                }
                if let passkeys {
                    Button {
                        run { await model.signInWithPasskey(passkeys) }
                    } label: {
                        Label("Sign in with a passkey", systemImage: "person.badge.key")
                    }
                    .disabled(model.state.isWorking)
                }
            }
            .textFieldStyle(.roundedBorder)
        }

        private var codeScreen: some View {
            VStack(spacing: 12) {
                Text("Enter the code we sent to \(model.state.identifier).").multilineTextAlignment(.center)
                TextField("Code", text: $model.code)
                    .keyboardType(.numberPad)
                    .textContentType(.oneTimeCode)
                    .textFieldStyle(.roundedBorder)
                primaryButton("Sign in") { await model.submitCode() }
                TimelineView(.periodic(from: .now, by: 1)) { _ in
                    let seconds = model.secondsUntilResend
                    Button(ResendCountdown.buttonTitle(seconds: seconds)) { run { await model.resend() } }
                        .disabled(model.state.isWorking || seconds > 0)
                        .monospacedDigit()
                }
                Button("Use another address") { model.changeIdentifier() }
            }
        }

        private func primaryButton(_ title: String, _ action: @escaping @MainActor () async -> Void) -> some View {
            Button {
                if usesPhone && model.state.step == .identifier {
                    model.identifier = country.e164(nationalNumber) ?? "+\(country.dialingCode)\(nationalNumber)"
                }
                run(action)
            } label: {
                Group {
                    if model.state.isWorking { ProgressView() } else { Text(title).bold() }
                }
                .frame(maxWidth: .infinity, minHeight: 44)
                .foregroundColor(brand.onColor)
                .background(brand.color, in: RoundedRectangle(cornerRadius: 10))
            }
            .disabled(model.state.isWorking)
        }

        /// Runs an action, then hands the credentials on once signed in.
        private func run(_ action: @escaping @MainActor () async -> Void) {
            Task { @MainActor in
                await action()
                if let credentials = model.state.credentials { onSignedIn(credentials) }
            }
        }
    }

    /// The magic link's waiting screen: the number to type where the link opens.
    struct LinkWaitingScreen: View {
        let wait: MagicLinkWait
        let brand: LockBrand
        let cancel: () -> Void

        var body: some View {
            VStack(spacing: 16) {
                Text("Check your email and open the link on any device. When it asks, enter this number:")
                    .multilineTextAlignment(.center)
                Text(wait.matchCode).font(.system(size: 56, weight: .bold, design: .rounded)).foregroundColor(brand.color)
                ProgressView()
                Button("Cancel", role: .cancel, action: cancel)
            }
        }
    }

    /// The dialing code button and its searchable list of countries.
    struct CountryPicker: View {
        @Binding var country: PhoneCountry
        @State private var isPresented = false
        @State private var search = ""

        var body: some View {
            Button("\(country.flag) +\(country.dialingCode)") { isPresented = true }
                .sheet(isPresented: $isPresented) {
                    NavigationView {
                        List(PhoneCountry.matching(search)) { candidate in
                            Button {
                                country = candidate
                                isPresented = false
                            } label: {
                                HStack {
                                    Text("\(candidate.flag) \(candidate.localizedName())")
                                    Spacer()
                                    Text("+\(candidate.dialingCode)").foregroundColor(.secondary)
                                }
                            }
                        }
                        .searchable(text: $search)
                        .navigationTitle("Country")
                    }
                }
        }
    }
#endif
